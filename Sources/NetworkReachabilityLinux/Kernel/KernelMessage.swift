import NetworkReachabilityCore
import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One rtnetlink notification or dump entry, typed: the only way kernel bytes enter the library's state.
enum KernelMessage: Sendable, Equatable {
    case link(Link)
    case address(InterfaceAddress)
    case route(Route)
    /// A policy rule was added or removed; its content does not matter, only that rules changed.
    case rule
    case routerAdvertisement(RouterAdvertisement)
    /// A neighbour entry was added, changed or removed.
    case neighbour(Neighbour)
    /// A type the library does not read (`NLMSG_DONE`, `NLMSG_ERROR`, a bridge's forwarding entries…).
    case other

    /// Parses one message; `nil` when it is one of the types above but truncated or lying about a length.
    init?(_ message: NetlinkMessage) {
        switch Int32(message.type) {
        case Int32(RTM_NEWLINK), Int32(RTM_DELLINK):
            guard let link = Link(message) else { return nil }
            self = .link(link)
        case Int32(RTM_NEWADDR), Int32(RTM_DELADDR):
            guard let address = InterfaceAddress(message) else { return nil }
            self = .address(address)
        case Int32(RTM_NEWROUTE), Int32(RTM_DELROUTE):
            guard let route = Route(message) else { return nil }
            self = .route(route)
        case Int32(RTM_NEWRULE), Int32(RTM_DELRULE):
            guard message.payload.count >= Int(cnl_fib_rule_hdr_length()) else { return nil }
            self = .rule
        case Int32(RTM_NEWNEIGH), Int32(RTM_DELNEIGH):
            guard message.payload.count >= Int(cnl_ndmsg_length()) else { return nil }
            // An entry with no IP address (a bridge's forwarding database, AF_BRIDGE) is not ours to read.
            guard let neighbour = Neighbour(message) else {
                let family = message.payload.byte(at: 0)
                if family == UInt8(AF_INET) || family == UInt8(AF_INET6) { return nil }
                self = .other
                return
            }
            self = .neighbour(neighbour)
        case Int32(RTM_NEWNDUSEROPT):
            guard let advertisement = NDUserOptionMessage.parse(message) else { return nil }
            self = .routerAdvertisement(advertisement)
        default:
            self = .other
        }
    }
}

/// The parsers' entry points for code outside the library that feeds them raw bytes: the fuzzers and the
/// parsing benchmark (a package of its own, hence SPI rather than `package`). Nothing here reaches a socket.
@_spi(Tooling) public enum KernelBytes {
    /// What the subscription makes of one datagram: messages parsed, and messages dropped as malformed.
    public static func tally(datagram: ArraySlice<UInt8>) -> (parsed: Int, malformed: Int) {
        let (messages, broken) = NetlinkMessage.split(datagram)
        var parsed = 0
        for message in messages where KernelMessage(message) != nil { parsed += 1 }
        return (parsed, broken + messages.count - parsed)
    }

    /// How many messages of one datagram a policy rule dump's parser reads as rules (the rest it drops).
    public static func ruleCount(datagram: ArraySlice<UInt8>) -> Int {
        NetlinkMessage.split(datagram).messages.count { PolicyRuleMessage($0) != nil }
    }

    /// How many messages of one datagram the quality reader reads as sock_diag reports of TCP sockets.
    public static func flowReportCount(datagram: ArraySlice<UInt8>) -> Int {
        NetlinkMessage.split(datagram).messages.count { FlowReport($0) != nil }
    }

    /// The number of attributes in a run of `rtattr`s, `nil` when a length lies.
    public static func attributeCount(_ bytes: ArraySlice<UInt8>) -> Int? {
        NetlinkAttribute.parse(bytes)?.count
    }
}
