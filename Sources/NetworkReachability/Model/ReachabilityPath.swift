/// The facts behind a target's flags: where a packet would leave, and how.
public struct ReachabilityPath: Sendable, Hashable {
    /// The output interface of the route, as `ip route get` prints it (`lo` for the host's own addresses).
    public var interface: NetworkInterface?
    /// The next hop, when the route has one.
    public var gateway: IPAddress?
    /// The source address the kernel would use (`RTA_PREFSRC`), when it names one.
    public var sourceAddress: IPAddress?
    /// For the internet: an IPv4 default or split-default route is usable. For an address: it is IPv4 and reachable.
    public var supportsIPv4: Bool
    /// For the internet: an IPv6 default or split-default route is usable. For an address: it is IPv6 and reachable.
    public var supportsIPv6: Bool
    /// Whether the path costs the user money: true on cellular.
    public var isExpensive: Bool
    /// For a host target: the resolution behind the path; `nil` for other targets.
    public var host: HostResolution?
    /// For the internet: an IPv6 default (or split-default) route is usable and no IPv4 one is, the mark of an
    /// IPv6-only network (where IPv4 destinations need NAT64). Always false for other targets.
    public var isIPv6Only: Bool { supportsIPv6 && !supportsIPv4 && isInternet }
    /// For the internet: the NAT64 prefixes in force, those advertised (PREF64) on the interface of the IPv6
    /// route first, then those DNS64 revealed (looked for only on an IPv6-only network). Empty for other targets.
    public var nat64Prefixes: [DiscoveredNAT64Prefix]
    /// For the internet: the DNS servers advertised (RDNSS) on the interface of the IPv6 route.
    public var advertisedDNSServers: [IPAddress]
    /// For the internet: the captive-portal API URI (RFC 8910) advertised on the interface of the IPv6 route.
    public var captivePortal: String?
    /// For an IPv4 address on an IPv6-only network with a known NAT64 prefix: the IPv4-embedded IPv6 address
    /// (RFC 6052) the path leads to; the flags and interface are that address's.
    public var synthesizedAddress: IPAddress?
    /// Set by the internet target's evaluation, so ``isIPv6Only`` speaks only for it.
    var isInternet = false
    /// Set for an IPv4 address on an IPv6-only network while the first NAT64 discovery runs: the status is
    /// unknown until it ends.
    var awaitsNAT64Discovery = false

    /// Makes a path.
    public init(
        interface: NetworkInterface? = nil, gateway: IPAddress? = nil, sourceAddress: IPAddress? = nil,
        supportsIPv4: Bool = false, supportsIPv6: Bool = false, isExpensive: Bool = false, host: HostResolution? = nil,
        nat64Prefixes: [DiscoveredNAT64Prefix] = [], advertisedDNSServers: [IPAddress] = [], captivePortal: String? = nil,
        synthesizedAddress: IPAddress? = nil
    ) {
        self.interface = interface
        self.gateway = gateway
        self.sourceAddress = sourceAddress
        self.supportsIPv4 = supportsIPv4
        self.supportsIPv6 = supportsIPv6
        self.isExpensive = isExpensive
        self.host = host
        self.nat64Prefixes = nat64Prefixes
        self.advertisedDNSServers = advertisedDNSServers
        self.captivePortal = captivePortal
        self.synthesizedAddress = synthesizedAddress
    }

    /// The path of a target that no route carries.
    public static let none = ReachabilityPath()
}
