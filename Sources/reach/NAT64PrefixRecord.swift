import NetworkReachability

/// A NAT64 prefix in JSON: `{"lifetime": 1800, "prefix": "64:ff9b::/96", "source": "routerAdvertisement"}`;
/// `lifetime` (whole seconds) is `null` for DNS64, which advertises none.
struct NAT64PrefixRecord: Encodable {
    var prefix: String
    var source: String
    var lifetime: Int?

    init(_ discovered: DiscoveredNAT64Prefix) {
        prefix = discovered.prefix.description
        source = discovered.source.rawValue
        lifetime = discovered.lifetime.map { Int($0.components.seconds) }
    }

    enum CodingKeys: String, CodingKey { case prefix, source, lifetime }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(prefix, forKey: .prefix)
        try container.encode(source, forKey: .source)
        try container.encode(lifetime, forKey: .lifetime)  // explicit null rather than a missing key
    }

    /// `64:ff9b::/96 (routerAdvertisement, lifetime 1800 s)`
    var text: String { "\(prefix) (\(source)\(lifetime.map { ", lifetime \($0) s" } ?? ""))" }
}
