/// Why a target is not reachable, or not known yet: NWPath's `unsatisfiedReason`, told from the kernel's facts.
///
/// The raw values are the words of the JSON `reason` key.
public enum UnsatisfiedReason: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// No route covers the destination (the lookup ends with `ENETUNREACH`). An interface taken down loses its
    /// routes with it, so this is also what a downed interface looks like, unless the target names the interface.
    case noRoute
    /// An `unreachable` route covers the destination (`EHOSTUNREACH`).
    case unreachableRoute
    /// A `prohibit` route covers the destination (`EACCES`).
    case prohibitRoute
    /// A `blackhole` route covers the destination, which drops packets silently (`EINVAL`).
    case blackholeRoute
    /// The interface the target names (an IPv6 zone, an address pair's local address) or its route leaves through
    /// is administratively down (no `IFF_UP`).
    case linkDown
    /// The route's interface is up but has no carrier (no `IFF_LOWER_UP`): a cable pulled, Wi-Fi not associated.
    case noCarrier
    /// The route's interface is dormant (operstate `dormant`): waiting for 802.1X or similar authentication.
    case dormant
    /// Routes exist, but only through interface types the listener prohibited (or not of the type it required).
    case prohibitedInterfaceType
    /// The host name's first resolution has not ended.
    case resolutionPending
    /// The host name did not resolve: no such name, no address, no server (the path's host says which).
    case resolutionFailed
    /// The host name's resolution took longer than its timeout.
    case resolutionTimedOut
    /// An IPv4 address on an IPv6-only network, while the network's first NAT64 discovery runs.
    case nat64DiscoveryPending
    /// An IPv4 address on an IPv6-only network that knows no NAT64 prefix: nothing can carry it.
    case ipv6OnlyWithoutNAT64
    /// For the link-local target: no interface that is up with carrier holds a link-local address.
    case noLinkLocalAddress

    /// The reason in a few words, as `reach` prints it: `no route`, `no carrier`…
    public var description: String {
        switch self {
        case .noRoute: "no route"
        case .unreachableRoute: "an unreachable route"
        case .prohibitRoute: "a prohibit route"
        case .blackholeRoute: "a blackhole route"
        case .linkDown: "link down"
        case .noCarrier: "no carrier"
        case .dormant: "dormant, waiting for authentication"
        case .prohibitedInterfaceType: "only through a prohibited interface type"
        case .resolutionPending: "resolution pending"
        case .resolutionFailed: "resolution failed"
        case .resolutionTimedOut: "resolution timed out"
        case .nat64DiscoveryPending: "NAT64 discovery pending"
        case .ipv6OnlyWithoutNAT64: "IPv4 on an IPv6-only network without a NAT64 prefix"
        case .noLinkLocalAddress: "no interface holds a link-local address"
        }
    }

    /// The reason's position in ``allCases``.
    package var ordinal: Int {
        switch self {
        case .noRoute: 0
        case .unreachableRoute: 1
        case .prohibitRoute: 2
        case .blackholeRoute: 3
        case .linkDown: 4
        case .noCarrier: 5
        case .dormant: 6
        case .prohibitedInterfaceType: 7
        case .resolutionPending: 8
        case .resolutionFailed: 9
        case .resolutionTimedOut: 10
        case .nat64DiscoveryPending: 11
        case .ipv6OnlyWithoutNAT64: 12
        case .noLinkLocalAddress: 13
        }
    }
}
