/// A NAT64 prefix the network made known, and how.
public struct DiscoveredNAT64Prefix: Sendable, Hashable {
    /// Where a prefix came from.
    public enum Source: String, Sendable, Hashable {
        /// An RFC 8781 PREF64 option in a router advertisement.
        case routerAdvertisement
        /// The RFC 7050 heuristic: DNS64's AAAA answer for `ipv4only.arpa`.
        case dns64
    }

    /// The prefix.
    public var prefix: NAT64Prefix
    /// Where it came from.
    public var source: Source
    /// The lifetime the router advertised (it lapses that long after the latest advertisement); `nil` for
    /// DNS64, which holds until the network changes.
    public var lifetime: Duration?

    /// Makes a discovered prefix.
    public init(prefix: NAT64Prefix, source: Source, lifetime: Duration? = nil) {
        self.prefix = prefix
        self.source = source
        self.lifetime = lifetime
    }
}
