/// What a router advertised in the options the kernel passes on (RFC 8781 PREF64, RFC 8106 RDNSS,
/// RFC 8910 captive portal).
public struct RouterAdvertisement: Sendable, Hashable {
    /// A NAT64 prefix with how long it stays valid; a zero lifetime withdraws it.
    public struct AdvertisedPrefix: Sendable, Hashable {
        /// The prefix.
        public var prefix: NAT64Prefix
        /// Its lifetime, from the scaled 13-bit field (units of 8 seconds).
        public var lifetime: Duration

        package init(prefix: NAT64Prefix, lifetime: Duration) {
            self.prefix = prefix
            self.lifetime = lifetime
        }
    }

    /// The interface the advertisement came in on.
    public var interfaceIndex: Int
    /// PREF64 options.
    public var nat64Prefixes: [AdvertisedPrefix] = []
    /// RDNSS servers, with the lifetime of their option (zero withdraws them).
    public var dnsServers: [IPAddress] = []
    /// The RDNSS lifetime, when an RDNSS option came.
    public var dnsLifetime: Duration?
    /// The captive-portal API URI (RFC 8910), when advertised.
    public var captivePortal: String?

    package init(
        interfaceIndex: Int, nat64Prefixes: [AdvertisedPrefix] = [], dnsServers: [IPAddress] = [],
        dnsLifetime: Duration? = nil, captivePortal: String? = nil
    ) {
        self.interfaceIndex = interfaceIndex
        self.nat64Prefixes = nat64Prefixes
        self.dnsServers = dnsServers
        self.dnsLifetime = dnsLifetime
        self.captivePortal = captivePortal
    }
}
