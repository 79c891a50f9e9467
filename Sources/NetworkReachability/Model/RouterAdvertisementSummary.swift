/// What a series of router advertisements leaves in force: for each NAT64 prefix and for the DNS servers the
/// latest advertisement wins, and a zero lifetime withdraws.
public struct RouterAdvertisementSummary: Sendable, Hashable {
    /// NAT64 prefixes in force, in the order first heard.
    public var nat64Prefixes: [RouterAdvertisement.AdvertisedPrefix] = []
    /// RDNSS servers in force.
    public var dnsServers: [IPAddress] = []
    /// The latest captive-portal URI advertised.
    public var captivePortal: String?

    /// Folds advertisements, oldest first.
    public init(folding advertisements: [RouterAdvertisement]) {
        for advertisement in advertisements {
            for advertised in advertisement.nat64Prefixes {
                nat64Prefixes.removeAll { $0.prefix == advertised.prefix }
                if advertised.lifetime > .zero { nat64Prefixes.append(advertised) }
            }
            if let lifetime = advertisement.dnsLifetime {
                dnsServers = lifetime > .zero ? advertisement.dnsServers : []
            }
            if let portal = advertisement.captivePortal { captivePortal = portal }
        }
    }
}
