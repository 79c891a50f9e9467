import CNetlink

/// A parsed `RTM_NEWROUTE`: the answer to a route lookup, or a route change.
struct RouteMessage: Sendable, Equatable {
    /// `rtm_type` values the evaluation distinguishes.
    enum RouteType: Sendable, Hashable {
        case unicast, local, broadcast, anycast, multicast, blackhole, unreachable, prohibit, `throw`, other(UInt8)

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

        /// Whether a packet routed this way leaves the host or is delivered locally, as `ip route get` shows:
        /// unicast and local, and also broadcast, multicast and anycast, which leave through an interface.
        /// Blackhole, unreachable, prohibit, throw and unknown types do not.
        var carriesPackets: Bool {
            switch self {
            case .unicast, .local, .broadcast, .multicast, .anycast: true
            case .blackhole, .unreachable, .prohibit, .throw, .other: false
            }
        }
    }

    var family: UInt8
    var destinationLength: UInt8
    var table: UInt32
    var type: RouteType
    var flags: UInt32
    var destination: IPAddress?
    var gateway: IPAddress?
    var preferredSource: IPAddress?
    var outputInterface: Int?
    /// Whether the route has several next hops, or a next-hop object that may be a group: the kernel then picks
    /// one per destination (by hash), so destinations matching the route may leave by different paths.
    var hasNextHopChoice = false
    /// The next hops' gateways of a multipath route (`RTA_MULTIPATH`), in the kernel's order; empty otherwise. A
    /// path lookup names the one hop it took; a table entry's answer (`fibmatch`) names them all.
    var multipathGateways: [IPAddress] = []
    /// The type of service the route is for (0 for any), and its metric: with the table and destination, what
    /// tells one route from another.
    var tos: UInt8 = 0
    var priority: UInt32?

    /// Makes a route as a lookup answer states it: for a simulated kernel, and tests.
    init(
        family: UInt8, destinationLength: UInt8, table: UInt32, type: RouteType, flags: UInt32 = 0,
        destination: IPAddress?, gateway: IPAddress?, preferredSource: IPAddress?, outputInterface: Int?
    ) {
        self.family = family
        self.destinationLength = destinationLength
        self.table = table
        self.type = type
        self.flags = flags
        self.destination = destination
        self.gateway = gateway
        self.preferredSource = preferredSource
        self.outputInterface = outputInterface
    }

    /// Parses the payload of a route message; `nil` when it is truncated or its attributes lie.
    init?(_ message: NetlinkMessage) {
        guard message.type == UInt16(RTM_NEWROUTE) || message.type == UInt16(RTM_DELROUTE),
            let route = message.payload.withUnsafeBytes(Self.parse)
        else { return nil }
        self = route
    }

    /// Reads the raw payload in one pass, the first of each attribute winning: a lookup answer is parsed per
    /// target per change, so no slice (and no reference counting) is made on the way.
    private static func parse(_ payload: UnsafeRawBufferPointer) -> RouteMessage? {
        guard let family = payload.byte(at: 0),
            let destinationLength = payload.byte(at: 1),
            let table = payload.byte(at: 4),
            let tos = payload.byte(at: 3),
            let type = payload.byte(at: 7),
            let flags = payload.uint32(at: 8),
            let attributes = payload.bytes(
                at: Int(cnl_rtmsg_length()), count: payload.count - Int(cnl_rtmsg_length()))
        else { return nil }
        var route = RouteMessage(
            family: family, destinationLength: destinationLength, table: UInt32(table), type: RouteType(type),
            flags: flags, destination: nil, gateway: nil, preferredSource: nil, outputInterface: nil)
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

extension RouteMessage {
    /// The route's destination prefix.
    var prefix: IPPrefix {
        IPPrefix(
            address: destination ?? IPPrefix.all(family == UInt8(AF_INET6) ? .ipv6 : .ipv4).address,
            length: Int(destinationLength))
    }

    /// Where the route sends a packet: all a target's description reads of it.
    var path: RoutePath {
        RoutePath(type: type, gateway: gateway, outputInterface: outputInterface, preferredSource: preferredSource)
    }
}

/// Where a route sends a packet: its type, next hop, output interface and source. It is all that a target's
/// description reads of a lookup's answer (``TargetEvaluator/snapshot(_:family:_:)``), so answers with equal paths
/// are described alike.
struct RoutePath: Hashable {
    var type: RouteMessage.RouteType
    var gateway: IPAddress?
    var outputInterface: Int?
    /// The source the route names (`RTA_PREFSRC`); a path lookup's answer always names the one the kernel picked.
    var preferredSource: IPAddress?

    /// Whether a path lookup's answer `taken` is this path, where this is a table entry's: the same type, next hop
    /// and interface, and the entry's source where it names one.
    func admits(_ taken: RoutePath) -> Bool {
        taken.type == type && taken.gateway == gateway && taken.outputInterface == outputInterface
            && (preferredSource == nil || taken.preferredSource == preferredSource)
    }
}
