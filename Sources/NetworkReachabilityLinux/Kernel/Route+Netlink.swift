import NetworkReachabilityCore
import CNetlink

/// Reading a ``Route`` from rtnetlink: a parsed `RTM_NEWROUTE` or `RTM_DELROUTE`.
extension Route {
    /// Parses the payload of a route message; `nil` when it is truncated or its attributes lie.
    init?(_ message: NetlinkMessage) {
        guard message.type == UInt16(RTM_NEWROUTE) || message.type == UInt16(RTM_DELROUTE),
            let route = message.payload.withUnsafeBytes(Self.parse)
        else { return nil }
        self = route
    }

    /// Reads the raw payload in one pass, the first of each attribute winning: a lookup answer is parsed per
    /// target per change, so no slice (and no reference counting) is made on the way.
    private static func parse(_ payload: UnsafeRawBufferPointer) -> Route? {
        guard let family = payload.byte(at: 0),
            let destinationLength = payload.byte(at: 1),
            let table = payload.byte(at: 4),
            let tos = payload.byte(at: 3),
            let type = payload.byte(at: 7),
            let attributes = payload.bytes(
                at: Int(cnl_rtmsg_length()), count: payload.count - Int(cnl_rtmsg_length()))
        else { return nil }
        var route = Route(
            family: family == UInt8(AF_INET6) ? .ipv6 : .ipv4, destinationLength: destinationLength,
            table: UInt32(table), type: RouteType(type), destination: nil, gateway: nil, preferredSource: nil,
            outputInterface: nil)
        route.tos = tos
        var seen: UInt64 = 0  // a bit per attribute type read below, all < 64
        var via: IPAddress?
        var lies = false
        let wellFormed = NetlinkAttribute.visit(attributes) { type, value in
            guard type < 64, seen & (1 << type) == 0 else { return }
            seen |= 1 << type
            switch type {
            case UInt16(RTA_TABLE.rawValue): if let table = value.uint32(at: 0) { route.table = table }
            case UInt16(RTA_DST.rawValue): route.destination = IPAddress(networkOrder: value)
            case UInt16(RTA_GATEWAY.rawValue): route.gateway = IPAddress(networkOrder: value)
            case UInt16(RTA_VIA.rawValue) where value.count > 2:
                // struct rtvia: the family, then the address
                via = IPAddress(networkOrder: UnsafeRawBufferPointer(rebasing: value[2...]))
            case UInt16(RTA_PREFSRC.rawValue): route.preferredSource = IPAddress(networkOrder: value)
            case UInt16(RTA_OIF.rawValue): route.outputInterface = value.uint32(at: 0).map(Int.init)
            case UInt16(RTA_MULTIPATH.rawValue):
                route.hasNextHopChoice = true
                guard let gateways = Self.nextHopGateways(value) else {
                    lies = true
                    return
                }
                route.multipathGateways = gateways
            case UInt16(RTA_NH_ID.rawValue): route.hasNextHopChoice = true
            case UInt16(RTA_PRIORITY.rawValue): route.priority = value.uint32(at: 0)
            default: break
            }
        }
        guard wellFormed, !lies else { return nil }
        if route.gateway == nil { route.gateway = via }
        return route
    }

    /// The gateways of `RTA_MULTIPATH`'s run of `struct rtnexthop` (length, flags, hops, interface index; then the
    /// hop's own attributes, `RTA_GATEWAY` or `RTA_VIA`), each padded to 4 bytes; `nil` when a length lies.
    static func nextHopGateways(_ bytes: UnsafeRawBufferPointer) -> [IPAddress]? {
        let headerLength = 8  // sizeof(struct rtnexthop)
        var gateways: [IPAddress] = []
        var offset = 0
        while offset < bytes.count {
            guard let length = bytes.uint16(at: offset).map(Int.init), length >= headerLength,
                let hop = bytes.bytes(at: offset, count: length)
            else { return nil }
            var gateway: IPAddress?
            let wellFormed = NetlinkAttribute.visit(UnsafeRawBufferPointer(rebasing: hop[headerLength...])) { type, value in
                switch type {
                case UInt16(RTA_GATEWAY.rawValue) where gateway == nil: gateway = IPAddress(networkOrder: value)
                case UInt16(RTA_VIA.rawValue) where gateway == nil && value.count > 2:
                    gateway = IPAddress(networkOrder: UnsafeRawBufferPointer(rebasing: value[2...]))
                default: break
                }
            }
            guard wellFormed else { return nil }
            if let gateway { gateways.append(gateway) }
            offset += (length + 3) & ~3
        }
        return gateways
    }
}

extension Route.RouteType {
    /// The type of an `rtm_type` value.
    init(_ raw: UInt8) {
        switch Int(raw) {
        case Int(RTN_UNICAST): self = .unicast
        case Int(RTN_LOCAL): self = .local
        case Int(RTN_BROADCAST): self = .broadcast
        case Int(RTN_ANYCAST): self = .anycast
        case Int(RTN_MULTICAST): self = .multicast
        case Int(RTN_BLACKHOLE): self = .blackhole
        case Int(RTN_UNREACHABLE): self = .unreachable
        case Int(RTN_PROHIBIT): self = .prohibit
        case Int(RTN_THROW): self = .throw
        default: self = .other(raw)
        }
    }
}
