/// A NAT64 prefix the network made known, and how.
public struct DiscoveredNAT64Prefix: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Where a prefix came from.
    public enum Source: String, Sendable, Hashable, Codable {
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

    /// `64:ff9b::/96 (routerAdvertisement, lifetime 1800 s)`, or `64:ff9b::/96 (dns64)`.
    public var description: String {
        "\(prefix) (\(source.rawValue)\(lifetime.map { ", lifetime \($0.components.seconds) s" } ?? ""))"
    }

    /// Makes a discovered prefix.
    public init(prefix: NAT64Prefix, source: Source, lifetime: Duration? = nil) {
        self.prefix = prefix
        self.source = source
        self.lifetime = lifetime
    }
}

extension DiscoveredNAT64Prefix {
    private enum CodingKeys: String, CodingKey { case prefix, source, lifetime }

    /// Decodes `{"prefix", "source", "lifetime"}`, the lifetime in whole seconds or null.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            prefix: try container.decode(NAT64Prefix.self, forKey: .prefix),
            source: try container.decode(Source.self, forKey: .source),
            lifetime: try container.decodeIfPresent(Int64.self, forKey: .lifetime).map { .seconds($0) })
    }

    /// Encodes `{"prefix": "64:ff9b::/96", "source": "routerAdvertisement", "lifetime": 1800}`; `lifetime` is
    /// null for DNS64, which advertises none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(prefix, forKey: .prefix)
        try container.encode(source, forKey: .source)
        try container.encode(lifetime.map { $0.components.seconds }, forKey: .lifetime)
    }
}
