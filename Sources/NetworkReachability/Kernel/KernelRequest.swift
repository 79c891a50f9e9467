import CNetlink
import Glibc

/// One question ``KernelQueries`` asks the kernel, as a value: encoded straight into the exchange's batch
/// buffer, with no closure or intermediate array per request.
enum KernelRequest {
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

    /// `buffer` with this request, numbered `sequence`, appended.
    func encode(sequence: UInt32, appendingTo buffer: consuming [UInt8]) -> [UInt8] {
        var request = NetlinkRequest(
            appendingTo: consume buffer, type: type, flags: isDump ? UInt16(NLM_F_DUMP) : 0, sequence: sequence)
        switch self {
        case .route(let destination, let source, let interfaceIndex):
            let fullLength = UInt8(destination.bytes.count * 8)
            // struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags
            request.appendField(destination.family == .ipv4 ? UInt8(AF_INET) : UInt8(AF_INET6))
            request.appendField(fullLength)
            request.appendField(source == nil ? 0 : fullLength)
            request.appendField(UInt32(0))  // tos, table, protocol, scope
            request.appendField(UInt8(0))  // type
            request.appendField(UInt32(0))  // flags
            request.appendAttribute(UInt16(RTA_DST.rawValue), destination.bytes)
            if let source { request.appendAttribute(UInt16(RTA_SRC.rawValue), source.bytes) }
            if let interfaceIndex { request.appendAttribute(UInt16(RTA_OIF.rawValue), uint32: UInt32(interfaceIndex)) }
        case .link(let index):
            Self.appendLinkHeader(index: Int32(truncatingIfNeeded: index), to: &request)
            // Counters are most of a link reply and never read here.
            request.appendAttribute(UInt16(IFLA_EXT_MASK), uint32: UInt32(RTEXT_FILTER_SKIP_STATS))
        case .linkNamed(let name):
            Self.appendLinkHeader(index: 0, to: &request)
            request.appendAttribute(UInt16(IFLA_IFNAME), Array(name.utf8) + [0])
        case .links:
            Self.appendLinkHeader(index: 0, to: &request)
        case .addresses:
            request.appendField(UInt64(0))  // struct ifaddrmsg, all zero: every family, every link
        }
        return request.finished()
    }

    /// struct ifinfomsg: family, padding, type, index, flags, change.
    private static func appendLinkHeader(index: Int32, to request: inout NetlinkRequest) {
        request.appendField(UInt8(AF_UNSPEC))
        request.appendField(UInt8(0))
        request.appendField(UInt16(0))
        request.appendField(index)
        request.appendField(UInt32(0))  // ifi_flags
        request.appendField(UInt32(0))  // ifi_change
    }
}
