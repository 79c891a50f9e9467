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
    /// Set by the internet target's evaluation, so ``isIPv6Only`` speaks only for it.
    var isInternet = false

    /// Makes a path.
    public init(
        interface: NetworkInterface? = nil, gateway: IPAddress? = nil, sourceAddress: IPAddress? = nil,
        supportsIPv4: Bool = false, supportsIPv6: Bool = false, isExpensive: Bool = false, host: HostResolution? = nil
    ) {
        self.interface = interface
        self.gateway = gateway
        self.sourceAddress = sourceAddress
        self.supportsIPv4 = supportsIPv4
        self.supportsIPv6 = supportsIPv6
        self.isExpensive = isExpensive
        self.host = host
    }

    /// The path of a target that no route carries.
    public static let none = ReachabilityPath()
}
