/// A target's path as `NWPathMonitor` hands it over (`NWPath`): its status in NWPath's three words, and the path's
/// properties under NWPath's names, so that code written against `NWPath` reads it unchanged.
public struct NetworkPath: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Whether the path can be used: NWPath's `NWPath.Status`.
    public enum Status: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// A packet sent now can leave this host toward the target (``NetworkReachabilityStatus/reachable(_:)``).
        case satisfied
        /// It cannot: no route, a route that refuses, no carrier, or not known yet (a host's first resolution).
        case unsatisfied
        /// It cannot now, but making a connection would bring it up (NWPath's VPN on demand). Never reported on
        /// Linux, where a link that is not ready (``ReachabilityFlags/connectionRequired``: no carrier, dormant) is
        /// not brought up by a connection, and a dial-on-demand link is up already; kept so that a `switch` written
        /// for NWPath compiles.
        case requiresConnection

        /// The status as NWPath prints it: `satisfied`, `unsatisfied`, `requiresConnection`.
        public var description: String { rawValue }
    }

    /// The snapshot this path describes: the flags and everything the library knows of the path.
    public let snapshot: ReachabilitySnapshot

    /// The path of `snapshot`.
    public init(_ snapshot: ReachabilitySnapshot) { self.snapshot = snapshot }

    /// Whether the path can be used now.
    public var status: Status {
        snapshot.status.isReachable ? .satisfied : .unsatisfied
    }

    /// Why the path cannot be used, or `nil` when it can: NWPath's `unsatisfiedReason`, in the library's finer words.
    public var unsatisfiedReason: UnsatisfiedReason? { snapshot.path.reason }

    /// The interfaces the path may use (NWPath's `availableInterfaces`).
    public var availableInterfaces: [NetworkInterface] { snapshot.path.availableInterfaces }

    /// Whether the path uses an interface of `type` (NWPath's `usesInterfaceType(_:)`).
    public func usesInterfaceType(_ type: NetworkInterface.InterfaceType) -> Bool { snapshot.path.usesInterfaceType(type) }

    /// Whether the path is cellular or metered (NWPath's `isExpensive`).
    public var isExpensive: Bool { snapshot.path.isExpensive }

    /// Always `false`: Linux has no counterpart of Low Data Mode, which NWPath's `isConstrained` reports.
    public var isConstrained: Bool { false }

    /// Whether the path can carry IPv4 (NWPath's `supportsIPv4`).
    public var supportsIPv4: Bool { snapshot.path.supportsIPv4 }

    /// Whether the path can carry IPv6 (NWPath's `supportsIPv6`).
    public var supportsIPv6: Bool { snapshot.path.supportsIPv6 }

    /// Whether a name server can be reached over the path (NWPath's `supportsDNS`).
    public var supportsDNS: Bool { snapshot.path.supportsDNS }

    /// The next hops of the path's route, every one of a multipath route (NWPath's `gateways`).
    public var gateways: [IPAddress] { snapshot.path.gateways }

    /// The status, and the interface the path uses, as `satisfied (wlan0)`.
    public var description: String {
        snapshot.path.interface.map { "\(status) (\($0.name))" } ?? status.description
    }

    /// The same as ``description``, for code that logs NWPath's `debugDescription`.
    public var debugDescription: String { description }
}
