import CNetlink
import Glibc

/// One question ``KernelQueries`` asks the kernel, as a value: encoded straight into the exchange's batch
/// buffer, with no closure or intermediate array per request.
enum KernelRequest: Equatable {
    /// `RTM_GETROUTE` for one destination (`ip route get`), optionally from a source or out of an interface.
    case route(to: IPAddress, from: IPAddress?, interfaceIndex: Int?)
    /// `RTM_GETLINK` for the link with this index.
    case link(index: Int)
    /// `RTM_GETLINK` for the link with this name.
    case linkNamed(String)
    /// `RTM_GETLINK` dump: every link.
    case links
    /// `RTM_GETADDR` dump: every address.
    case addresses

    /// Whether the kernel answers with a dump (many messages, then `NLMSG_DONE`).
    var isDump: Bool {
        switch self {
        case .links, .addresses: true
        case .route, .link, .linkNamed: false
        }
    }

    /// The netlink message type.
    var type: UInt16 {
        switch self {
        case .route: UInt16(RTM_GETROUTE)
        case .link, .linkNamed, .links: UInt16(RTM_GETLINK)
        case .addresses: UInt16(RTM_GETADDR)
        }
    }

    /// `buffer` with this request, numbered `sequence`, appended. The request's bytes are set aside in one
    /// step and written in place: a request costs no allocation once the reused buffer has grown.
    func encode(sequence: UInt32, appendingTo buffer: consuming [UInt8]) -> [UInt8] {
        var bytes = consume buffer
        let start = bytes.count
        let length = encodedLength
        bytes.append(contentsOf: repeatElement(0, count: length))
        bytes.withUnsafeMutableBytes { raw in
            var writer = NetlinkWriter(raw, messageStart: start, offset: start)
            writer.header(length: length, type: type, flags: isDump ? UInt16(NLM_F_DUMP) : 0, sequence: sequence)
            write(into: &writer)
        }
        return bytes
    }

    /// The request's size: header, family header and attributes, each aligned.
    var encodedLength: Int {
        let attribute = NetlinkWriter.attributeSize
        let familyHeader: Int
        var attributes = 0
        switch self {
        case .route(let destination, let source, let interfaceIndex):
            familyHeader = Int(cnl_rtmsg_length())
            attributes += attribute(destination.byteCount)
            if let source { attributes += attribute(source.byteCount) }
            if interfaceIndex != nil { attributes += attribute(4) }
        case .link:
            familyHeader = Int(cnl_ifinfomsg_length())
            attributes += attribute(4)
        case .linkNamed(let name):
            familyHeader = Int(cnl_ifinfomsg_length())
            attributes += attribute(name.utf8.count + 1)
        case .links:
            familyHeader = Int(cnl_ifinfomsg_length())
        case .addresses:
            familyHeader = Int(cnl_ifaddrmsg_length())
        }
        return NetlinkWriter.headerSize + Int(cnl_nlmsg_align(UInt32(familyHeader))) + attributes
    }

    /// Writes the family header and the attributes after the `nlmsghdr`.
    private func write(into writer: inout NetlinkWriter) {
        switch self {
        case .route(let destination, let source, let interfaceIndex):
            let fullLength = UInt8(destination.byteCount * 8)
            // struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags
            writer.field(destination.family == .ipv4 ? UInt8(AF_INET) : UInt8(AF_INET6))
            writer.field(fullLength)
            writer.field(source == nil ? 0 : fullLength)
            writer.field(UInt32(0))  // tos, table, protocol, scope
            writer.field(UInt8(0))  // type
            writer.field(UInt32(0))  // flags
            writer.attribute(UInt16(RTA_DST.rawValue), address: destination)
            if let source { writer.attribute(UInt16(RTA_SRC.rawValue), address: source) }
            if let interfaceIndex { writer.attribute(UInt16(RTA_OIF.rawValue), uint32: UInt32(interfaceIndex)) }
        case .link(let index):
            Self.writeLinkHeader(index: Int32(truncatingIfNeeded: index), into: &writer)
            // Counters are most of a link reply and never read here.
            writer.attribute(UInt16(IFLA_EXT_MASK), uint32: UInt32(RTEXT_FILTER_SKIP_STATS))
        case .linkNamed(let name):
            Self.writeLinkHeader(index: 0, into: &writer)
            writer.attribute(UInt16(IFLA_IFNAME), name.utf8, nulTerminated: true)
        case .links:
            Self.writeLinkHeader(index: 0, into: &writer)
        case .addresses:
            writer.field(UInt64(0))  // struct ifaddrmsg, all zero: every family, every link
        }
    }

    /// struct ifinfomsg: family, padding, type, index, flags, change.
    private static func writeLinkHeader(index: Int32, into writer: inout NetlinkWriter) {
        writer.field(UInt8(AF_UNSPEC))
        writer.field(UInt8(0))
        writer.field(UInt16(0))
        writer.field(index)
        writer.field(UInt32(0))  // ifi_flags
        writer.field(UInt32(0))  // ifi_change
    }
}
