import NetworkReachabilityCore
import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One question ``KernelQueries`` asks the kernel, as a value: encoded straight into the exchange's batch
/// buffer, with no closure or intermediate array per request.
enum KernelRequest: Equatable {
    /// `RTM_GETROUTE` for one destination (`ip route get`), optionally from a source or out of an interface.
    case route(to: IPAddress, from: IPAddress?, interfaceIndex: Int?)
    /// `RTM_GETROUTE` for one destination as a packet with firewall mark `mark` would go (`ip route get … mark`):
    /// policy rules that select by mark decide it.
    case markedRoute(to: IPAddress, mark: UInt32)
    /// `RTM_GETROUTE` with `RTM_F_FIB_MATCH` and `RTM_F_LOOKUP_TABLE` (`ip route get … fibmatch`): the table entry
    /// a packet to the destination matches, with its prefix and table, not the path the packet would take.
    case matchedRoute(to: IPAddress, from: IPAddress? = nil, interfaceIndex: Int? = nil)
    /// `RTM_GETROUTE` dump of one family's routes, in one table and of one type (`RTN_*`) where given; the kernel
    /// filters only on a socket with strict checking (`NETLINK_GET_STRICT_CHK`).
    case routes(family: IPAddress.Family, table: UInt32?, type: UInt8?)
    /// `RTM_GETRULE` dump: one family's policy rules.
    case rules(family: IPAddress.Family)
    /// `RTM_GETLINK` for the link with this index.
    case link(index: Int)
    /// `RTM_GETLINK` for the link with this name.
    case linkNamed(String)
    /// `RTM_GETLINK` dump: every link.
    case links
    /// `RTM_GETADDR` dump: every address.
    case addresses
    /// `RTM_GETNEIGH` dump of one family's neighbour table (`ip neigh`).
    case neighbours(family: IPAddress.Family)

    /// Whether the kernel answers with a dump (many messages, then `NLMSG_DONE`).
    var isDump: Bool {
        switch self {
        case .links, .addresses, .routes, .rules, .neighbours: true
        case .route, .markedRoute, .matchedRoute, .link, .linkNamed: false
        }
    }

    /// The netlink message type.
    var type: UInt16 {
        switch self {
        case .route, .markedRoute, .matchedRoute, .routes: UInt16(RTM_GETROUTE)
        case .rules: UInt16(RTM_GETRULE)
        case .link, .linkNamed, .links: UInt16(RTM_GETLINK)
        case .addresses: UInt16(RTM_GETADDR)
        case .neighbours: UInt16(RTM_GETNEIGH)
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
        case .markedRoute(let destination, _):
            familyHeader = Int(cnl_rtmsg_length())
            attributes += attribute(destination.byteCount) + attribute(4)
        case .matchedRoute(let destination, let source, let interfaceIndex):
            familyHeader = Int(cnl_rtmsg_length())
            attributes += attribute(destination.byteCount)
            if let source { attributes += attribute(source.byteCount) }
            if interfaceIndex != nil { attributes += attribute(4) }
        case .routes(_, let table, _):
            familyHeader = Int(cnl_rtmsg_length())
            if table != nil { attributes += attribute(4) }
        case .rules:
            familyHeader = Int(cnl_fib_rule_hdr_length())
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
        case .neighbours:
            familyHeader = Int(cnl_ndmsg_length())
        }
        return NetlinkWriter.headerSize + Int(cnl_nlmsg_align(UInt32(familyHeader))) + attributes
    }

    /// Writes the family header and the attributes after the `nlmsghdr`.
    private func write(into writer: inout NetlinkWriter) {
        switch self {
        case .route(let destination, let source, let interfaceIndex):
            Self.writeLookupHeader(destination, hasSource: source != nil, flags: 0, into: &writer)
            writer.attribute(UInt16(RTA_DST.rawValue), address: destination)
            if let source { writer.attribute(UInt16(RTA_SRC.rawValue), address: source) }
            if let interfaceIndex { writer.attribute(UInt16(RTA_OIF.rawValue), uint32: UInt32(interfaceIndex)) }
        case .markedRoute(let destination, let mark):
            Self.writeLookupHeader(destination, hasSource: false, flags: 0, into: &writer)
            writer.attribute(UInt16(RTA_DST.rawValue), address: destination)
            writer.attribute(UInt16(RTA_MARK.rawValue), uint32: mark)
        case .matchedRoute(let destination, let source, let interfaceIndex):
            // Without RTM_F_LOOKUP_TABLE the answer names `main`, whatever table the entry is in.
            let flags = UInt32(RTM_F_FIB_MATCH) | UInt32(RTM_F_LOOKUP_TABLE)
            Self.writeLookupHeader(destination, hasSource: source != nil, flags: flags, into: &writer)
            writer.attribute(UInt16(RTA_DST.rawValue), address: destination)
            if let source { writer.attribute(UInt16(RTA_SRC.rawValue), address: source) }
            if let interfaceIndex { writer.attribute(UInt16(RTA_OIF.rawValue), uint32: UInt32(interfaceIndex)) }
        case .routes(let family, let table, let type):
            // struct rtmsg with only the family, the table (RTA_TABLE too, for tables above 255) and the type
            writer.field(Self.addressFamily(family))
            writer.field(UInt8(0))  // dst_len
            writer.field(UInt16(0))  // src_len, tos
            writer.field(UInt8(truncatingIfNeeded: table.map { $0 < 256 ? $0 : 0 } ?? 0))
            writer.field(UInt16(0))  // protocol, scope
            writer.field(type ?? 0)
            writer.field(UInt32(0))  // flags
            if let table { writer.attribute(UInt16(RTA_TABLE.rawValue), uint32: table) }
        case .rules(let family):
            // struct fib_rule_hdr: family, then all zero (dst_len, src_len, tos, table, res1, res2, action, flags)
            writer.field(Self.addressFamily(family))
            writer.field(UInt8(0))
            writer.field(UInt16(0))
            writer.field(UInt64(0))
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
        case .neighbours(let family):
            // struct ndmsg: the family, then all zero (padding, every link, every state, flags, type)
            writer.field(Self.addressFamily(family))
            writer.field(UInt8(0))
            writer.field(UInt16(0))
            writer.field(UInt64(0))
        }
    }

    /// struct rtmsg of a lookup: family, dst_len, src_len, tos, table, protocol, scope, type, flags.
    private static func writeLookupHeader(
        _ destination: IPAddress, hasSource: Bool, flags: UInt32, into writer: inout NetlinkWriter
    ) {
        let fullLength = UInt8(destination.byteCount * 8)
        writer.field(addressFamily(destination.family))
        writer.field(fullLength)
        writer.field(hasSource ? fullLength : 0)
        writer.field(UInt32(0))  // tos, table, protocol, scope
        writer.field(UInt8(0))  // type
        writer.field(flags)
    }

    private static func addressFamily(_ family: IPAddress.Family) -> UInt8 {
        family == .ipv4 ? UInt8(AF_INET) : UInt8(AF_INET6)
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
