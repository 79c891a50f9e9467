/// A route, as the evaluation reads one: a lookup's answer or a table's entry. The Linux backend reads it from
/// rtnetlink (`Route+Netlink.swift`); a simulated network states it.
package struct Route: Sendable, Equatable {
    /// The route types the evaluation distinguishes (Linux's `RTN_*`).
    package enum RouteType: Sendable, Hashable {
        case unicast, local, broadcast, anycast, multicast, blackhole, unreachable, prohibit, `throw`, other(UInt8)

        /// Whether a packet routed this way leaves the host or is delivered locally, as `ip route get` shows:
        /// unicast and local, and also broadcast, multicast and anycast, which leave through an interface.
        /// Blackhole, unreachable, prohibit, throw and unknown types do not.
        package var carriesPackets: Bool {
            switch self {
            case .unicast, .local, .broadcast, .multicast, .anycast: true
            case .blackhole, .unreachable, .prohibit, .throw, .other: false
            }
        }
    }

    /// The main and local tables' numbers, as Linux numbers them (`RT_TABLE_MAIN`, `RT_TABLE_LOCAL`).
    package static let mainTable: UInt32 = 254
    package static let localTable: UInt32 = 255

    package var family: IPAddress.Family
    package var destinationLength: UInt8
    package var table: UInt32
    package var type: RouteType
    package var destination: IPAddress?
    package var gateway: IPAddress?
    package var preferredSource: IPAddress?
    package var outputInterface: Int?
    /// Whether the route has several next hops, or a next-hop object that may be a group: the kernel then picks
    /// one per destination (by hash), so destinations matching the route may leave by different paths.
    package var hasNextHopChoice = false
    /// The next hops' gateways of a multipath route, in the kernel's order; empty otherwise. A path lookup names the
    /// one hop it took; a table entry's answer (`fibmatch`) names them all.
    package var multipathGateways: [IPAddress] = []
    /// The type of service the route is for (0 for any), and its metric: with the table and destination, what
    /// tells one route from another.
    package var tos: UInt8 = 0
    package var priority: UInt32?

    /// Makes a route as a lookup answer states it.
    package init(
        family: IPAddress.Family, destinationLength: UInt8, table: UInt32, type: RouteType, destination: IPAddress?,
        gateway: IPAddress?, preferredSource: IPAddress?, outputInterface: Int?
    ) {
        self.family = family
        self.destinationLength = destinationLength
        self.table = table
        self.type = type
        self.destination = destination
        self.gateway = gateway
        self.preferredSource = preferredSource
        self.outputInterface = outputInterface
    }

    /// The route's destination prefix.
    package var prefix: IPPrefix {
        IPPrefix(address: destination ?? IPPrefix.all(family).address, length: Int(destinationLength))
    }

    /// Where the route sends a packet: all a target's description reads of it.
    package var path: RoutePath {
        RoutePath(type: type, gateway: gateway, outputInterface: outputInterface, preferredSource: preferredSource)
    }
}

/// Where a route sends a packet: its type, next hop, output interface and source. It is all that a target's
/// description reads of a lookup's answer (``TargetEvaluator/snapshot(_:family:_:)``), so answers with equal paths
/// are described alike.
package struct RoutePath: Hashable, Sendable {
    package var type: Route.RouteType
    package var gateway: IPAddress?
    package var outputInterface: Int?
    /// The source the route names; a path lookup's answer always names the one the kernel picked.
    package var preferredSource: IPAddress?

    package init(type: Route.RouteType, gateway: IPAddress?, outputInterface: Int?, preferredSource: IPAddress?) {
        self.type = type
        self.gateway = gateway
        self.outputInterface = outputInterface
        self.preferredSource = preferredSource
    }

    /// Whether a path lookup's answer `taken` is this path, where this is a table entry's: the same type, next hop
    /// and interface, and the entry's source where it names one.
    package func admits(_ taken: RoutePath) -> Bool {
        taken.type == type && taken.gateway == gateway && taken.outputInterface == outputInterface
            && (preferredSource == nil || taken.preferredSource == preferredSource)
    }
}
