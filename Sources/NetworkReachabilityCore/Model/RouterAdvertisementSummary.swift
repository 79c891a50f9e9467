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
        for advertisement in advertisements { fold(advertisement) }
    }

    /// Applies one more advertisement on top of what is in force.
    mutating func fold(_ advertisement: RouterAdvertisement) {
        for advertised in advertisement.nat64Prefixes {
            let existing = nat64Prefixes.firstIndex { $0.prefix == advertised.prefix }
            switch (existing, advertised.lifetime > .zero) {
            case (let index?, true): nat64Prefixes[index] = advertised
            case (let index?, false): nat64Prefixes.remove(at: index)
            case (nil, true): nat64Prefixes.append(advertised)
            case (nil, false): break
            }
        }
        if let lifetime = advertisement.dnsLifetime {
            dnsServers = lifetime > .zero ? advertisement.dnsServers : []
        }
        if let portal = advertisement.captivePortal { captivePortal = portal }
    }
}
