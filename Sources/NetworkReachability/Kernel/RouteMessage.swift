import CNetlink

/// A parsed `RTM_NEWROUTE`: the answer to a route lookup, or a route change.
struct RouteMessage: Sendable, Equatable {
    /// `rtm_type` values the evaluation distinguishes.
    enum RouteType: Sendable, Equatable {
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
            let family = message.payload.byte(at: 0),
            let destinationLength = message.payload.byte(at: 1),
            let table = message.payload.byte(at: 4),
            let type = message.payload.byte(at: 7),
            let flags = message.payload.uint32(at: 8),
            let attributes = message.payload.bytes(
                at: Int(cnl_rtmsg_length()), count: message.payload.count - Int(cnl_rtmsg_length()))
        else { return nil }
        self.family = family
        self.destinationLength = destinationLength
        self.type = RouteType(type)
        self.flags = flags
        self.table = UInt32(table)
        // One pass, the first of each attribute winning: a lookup answer is parsed per target per change.
        var seen: UInt64 = 0  // a bit per attribute type read below, all < 64
        var via: IPAddress?
        let wellFormed = NetlinkAttribute.visit(attributes) { attribute in
            guard attribute.type < 64, seen & (1 << attribute.type) == 0 else { return }
            seen |= 1 << attribute.type
            switch attribute.type {
            case UInt16(RTA_TABLE.rawValue): if let value = attribute.payload.uint32(at: 0) { self.table = value }
            case UInt16(RTA_DST.rawValue): destination = IPAddress(networkOrder: attribute.payload)
            case UInt16(RTA_GATEWAY.rawValue): gateway = IPAddress(networkOrder: attribute.payload)
            case UInt16(RTA_VIA.rawValue) where attribute.payload.count > 2:
                via = IPAddress(networkOrder: attribute.payload.dropFirst(2))  // struct rtvia: family, then the address
            case UInt16(RTA_PREFSRC.rawValue): preferredSource = IPAddress(networkOrder: attribute.payload)
            case UInt16(RTA_OIF.rawValue): outputInterface = attribute.payload.uint32(at: 0).map(Int.init)
            default: break
            }
        }
        guard wellFormed else { return nil }
        if gateway == nil { gateway = via }
    }
}
