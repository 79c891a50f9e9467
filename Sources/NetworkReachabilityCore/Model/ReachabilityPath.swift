/// The facts behind a target's flags: where a packet would leave, and how.
public struct ReachabilityPath: Sendable, Hashable {
    /// The values, boxed, so that the targets behind one route keep one path between them: a path is about 300
    /// bytes, and 10,000 listening targets keep that much less each (`Benchmarks/`, resident bytes per target).
    /// Copy-on-write keeps value semantics.
    private struct Fields: Hashable, Sendable {
        var interface: NetworkInterface? = nil
        var gateway: IPAddress? = nil
        var sourceAddress: IPAddress? = nil
        var supportsIPv4: Bool = false
        var supportsIPv6: Bool = false
        var host: HostResolution? = nil
        var nat64Prefixes: [DiscoveredNAT64Prefix] = []
        var advertisedDNSServers: [IPAddress] = []
        var captivePortal: String? = nil
        var synthesizedAddress: IPAddress? = nil
        var isInternet: Bool = false
        var awaitsNAT64Discovery: Bool = false
        var reason: UnsatisfiedReason? = nil
        /// Set only where they say more than ``gateway`` and ``interface`` (the internet's): a path a lookup describes
        /// allocates no array for them, which keeps a read at its budget (`scripts/bench-reads`).
        var gateways: [IPAddress]? = nil
        var availableInterfaces: [NetworkInterface]? = nil
        var supportsDNS: Bool = false
        var details: LinkDetails? = nil
        var quality: LinkQuality? = nil
        var network: NetworkIdentity? = nil
        var underlying: [UnderlyingLink] = []
    }

    private final class Storage: @unchecked Sendable {
        // Mutated only through `update`, while this path holds the only reference.
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    /// The output interface of the route, as `ip route get` prints it (`lo` for the host's own addresses).
    public var interface: NetworkInterface? {
        get { storage.fields.interface }
        set { update { $0.interface = newValue } }
    }
    /// The next hop, when the route has one.
    public var gateway: IPAddress? {
        get { storage.fields.gateway }
        set { update { $0.gateway = newValue } }
    }
    /// The source address the kernel would use (`RTA_PREFSRC`), when it names one.
    public var sourceAddress: IPAddress? {
        get { storage.fields.sourceAddress }
        set { update { $0.sourceAddress = newValue } }
    }
    /// For the internet: an IPv4 default or split-default route is usable. For an address: it is IPv4 and reachable.
    public var supportsIPv4: Bool {
        get { storage.fields.supportsIPv4 }
        set { update { $0.supportsIPv4 = newValue } }
    }
    /// For the internet: an IPv6 default or split-default route is usable. For an address: it is IPv6 and reachable.
    public var supportsIPv6: Bool {
        get { storage.fields.supportsIPv6 }
        set { update { $0.supportsIPv6 = newValue } }
    }
    /// NWPath's `isExpensive`: what the network's settings say (``NetworkIdentity/isMetered``), where they say it;
    /// otherwise the route leaves through a cellular interface, or its connection is metered
    /// (``LinkDetails/isMetered``), or, through a VPN, the link under it is expensive by the same rule
    /// (``UnderlyingLink/isExpensive``): a tunnel costs what carries it.
    public var isExpensive: Bool {
        network?.isMetered
            ?? (Self.isExpensive(interface: interface, details: details, network: nil)
                || underlying.contains(where: \.isExpensive))
    }
    /// The rule of ``isExpensive`` for one interface: its network's settings where they say it, else cellular or
    /// metered. Every path and every link under a tunnel asks here.
    package static func isExpensive(interface: NetworkInterface?, details: LinkDetails?, network: NetworkIdentity?) -> Bool {
        network?.isMetered ?? (interface?.type == .cellular || details?.isMetered == true)
    }
    /// Whether a modem says the route's interface, or the link under its VPN, is roaming.
    public var isRoaming: Bool { details?.isRoaming == true || underlying.contains { $0.details?.isRoaming == true } }
    /// Whether the route leaves through a VPN's tunnel (``NetworkInterface/isVPN``).
    public var isVPN: Bool { interface?.isVPN == true }
    /// Through a VPN: the link that carries the tunnel's packets, with its own type, details and network; empty
    /// when the path is no VPN's, or when what carries the tunnel cannot be known (see ``UnderlyingLink``).
    public var underlying: [UnderlyingLink] {
        get { storage.fields.underlying }
        set { update { $0.underlying = newValue } }
    }
    /// What a modem or a network manager says of the route's interface: radio technology, signal, roaming, metered.
    /// `nil` unless a source of such details is running (the `NetworkReachabilityRadio` product, or a simulated
    /// network's ``LinkDetails``) and knows the interface.
    public var details: LinkDetails? {
        get { storage.fields.details }
        set { update { $0.details = newValue?.isEmpty == true ? nil : newValue } }
    }
    /// How good the route's interface is, measured from the host's TCP flows through its gateways: NWPath's
    /// `linkQuality`, with its figures. `nil` unless this path comes from a `NetworkReachability` that measures
    /// quality (`measuresQuality`), or a simulated network that states it.
    public var quality: LinkQuality? {
        get { storage.fields.quality }
        set { update { $0.quality = newValue } }
    }
    /// Which network the route's interface is attached to (``NetworkIdentity``): `nil` while the platform knows no
    /// identity for it (no gateway, or the gateway's MAC address not resolved yet).
    public var network: NetworkIdentity? {
        get { storage.fields.network }
        set { update { $0.network = newValue } }
    }
    /// For a host target: the resolution behind the path; `nil` for other targets.
    public var host: HostResolution? {
        get { storage.fields.host }
        set { update { $0.host = newValue } }
    }
    /// For the internet: the NAT64 prefixes in force, those advertised (PREF64) on the interface of the IPv6
    /// route first, then those DNS64 revealed (looked for only on an IPv6-only network). Empty for other targets.
    public var nat64Prefixes: [DiscoveredNAT64Prefix] {
        get { storage.fields.nat64Prefixes }
        set { update { $0.nat64Prefixes = newValue } }
    }
    /// For the internet: the DNS servers advertised (RDNSS) on the interface of the IPv6 route.
    public var advertisedDNSServers: [IPAddress] {
        get { storage.fields.advertisedDNSServers }
        set { update { $0.advertisedDNSServers = newValue } }
    }
    /// For the internet: the captive-portal API URI (RFC 8910) advertised on the interface of the IPv6 route.
    public var captivePortal: String? {
        get { storage.fields.captivePortal }
        set { update { $0.captivePortal = newValue } }
    }
    /// For an IPv4 address on an IPv6-only network with a known NAT64 prefix: the IPv4-embedded IPv6 address
    /// (RFC 6052) the path leads to; the flags and interface are that address's.
    public var synthesizedAddress: IPAddress? {
        get { storage.fields.synthesizedAddress }
        set { update { $0.synthesizedAddress = newValue } }
    }
    /// Set by the internet target's evaluation, so ``isIPv6Only`` speaks only for it.
    var isInternet: Bool {
        get { storage.fields.isInternet }
        set { update { $0.isInternet = newValue } }
    }
    /// Every next hop of the route: for the internet, all of a multipath default route's gateways (the kernel
    /// picks one per flow); for other targets the one ``gateway`` the lookup took. Empty on-link.
    public var gateways: [IPAddress] {
        get { storage.fields.gateways ?? storage.fields.gateway.map { [$0] } ?? [] }
        set { update { $0.gateways = newValue == ($0.gateway.map { [$0] } ?? []) ? nil : newValue } }
    }
    /// NWPath's `availableInterfaces`: the route's own interface first; for the internet, then every other interface
    /// that could carry traffic now (up, with carrier, not loopback), in index order.
    public var availableInterfaces: [NetworkInterface] {
        get { storage.fields.availableInterfaces ?? storage.fields.interface.map { [$0] } ?? [] }
        set { update { $0.availableInterfaces = newValue == ($0.interface.map { [$0] } ?? []) ? nil : newValue } }
    }
    /// NWPath's `supportsDNS`, for the internet: a name server is configured (`/etc/resolv.conf`; where it names only
    /// systemd-resolved's stub, one of the upstream servers systemd-resolved uses) or advertised (RDNSS). Always false
    /// for other targets.
    public var supportsDNS: Bool {
        get { storage.fields.supportsDNS }
        set { update { $0.supportsDNS = newValue } }
    }
    /// NWPath's `usesInterfaceType(_:)`: whether the route leaves through an interface of `type`, or, through a VPN,
    /// the link under it is of `type` (as Apple's path over a VPN on Wi-Fi uses Wi-Fi).
    public func usesInterfaceType(_ type: NetworkInterface.InterfaceType) -> Bool {
        interface?.type == type || underlying.contains { $0.interface.type == type }
    }
    /// Why the target is not reachable, or not known yet; `nil` when it is reachable.
    public var reason: UnsatisfiedReason? {
        get { storage.fields.reason }
        set { update { $0.reason = newValue } }
    }
    /// Set for an IPv4 address on an IPv6-only network while the first NAT64 discovery runs: the status is
    /// unknown until it ends.
    var awaitsNAT64Discovery: Bool {
        get { storage.fields.awaitsNAT64Discovery }
        set { update { $0.awaitsNAT64Discovery = newValue } }
    }
    /// For the internet: an IPv6 default (or split-default) route is usable and no IPv4 one is, the mark of an
    /// IPv6-only network (where IPv4 destinations need NAT64). Always false for other targets.
    public var isIPv6Only: Bool { supportsIPv6 && !supportsIPv4 && isInternet }

    private mutating func update(_ change: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
        change(&storage.fields)
    }

    /// Whether two paths hold the same facts.
    public static func == (lhs: ReachabilityPath, rhs: ReachabilityPath) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    /// Hashes the facts, consistently with `==`.
    public func hash(into hasher: inout Hasher) { storage.fields.hash(into: &hasher) }

    /// Makes a path.
    public init(
        interface: NetworkInterface? = nil, gateway: IPAddress? = nil, sourceAddress: IPAddress? = nil,
        supportsIPv4: Bool = false, supportsIPv6: Bool = false, host: HostResolution? = nil,
        nat64Prefixes: [DiscoveredNAT64Prefix] = [], advertisedDNSServers: [IPAddress] = [], captivePortal: String? = nil,
        synthesizedAddress: IPAddress? = nil, reason: UnsatisfiedReason? = nil, gateways: [IPAddress]? = nil,
        availableInterfaces: [NetworkInterface]? = nil, supportsDNS: Bool = false, details: LinkDetails? = nil,
        quality: LinkQuality? = nil, network: NetworkIdentity? = nil, underlying: [UnderlyingLink] = []
    ) {
        storage = Storage(
            Fields(
                interface: interface, gateway: gateway, sourceAddress: sourceAddress, supportsIPv4: supportsIPv4,
                supportsIPv6: supportsIPv6, host: host, nat64Prefixes: nat64Prefixes,
                advertisedDNSServers: advertisedDNSServers, captivePortal: captivePortal,
                synthesizedAddress: synthesizedAddress, reason: reason,
                supportsDNS: supportsDNS, details: details?.isEmpty == true ? nil : details, quality: quality,
                network: network, underlying: underlying))
        if let gateways { self.gateways = gateways }
        if let availableInterfaces { self.availableInterfaces = availableInterfaces }
    }

    /// The path of a target that no route carries.
    public static let none = ReachabilityPath()
}

extension ReachabilityPath: Codable {
    enum CodingKeys: String, CodingKey {
        case interface, gateway, supportsIPv4, supportsIPv6, isExpensive, host, synthesizedAddress, reason
        case gateways, availableInterfaces
        case isIPv6Only, nat64Prefixes, advertisedDNSServers, captivePortal, supportsDNS
        case effectiveType
        case network
        case vpn, underlying
    }

    /// Decodes what ``encode(to:)`` writes; the internet's keys (`isIPv6Only` and the rest) mark an internet path.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            interface: try container.decodeIfPresent(NetworkInterface.self, forKey: .interface),
            gateway: try container.decodeIfPresent(IPAddress.self, forKey: .gateway),
            supportsIPv4: try container.decodeIfPresent(Bool.self, forKey: .supportsIPv4) ?? false,
            supportsIPv6: try container.decodeIfPresent(Bool.self, forKey: .supportsIPv6) ?? false,
            host: try container.decodeIfPresent(HostResolution.self, forKey: .host),
            nat64Prefixes: try container.decodeIfPresent([DiscoveredNAT64Prefix].self, forKey: .nat64Prefixes) ?? [],
            advertisedDNSServers: try container.decodeIfPresent([IPAddress].self, forKey: .advertisedDNSServers) ?? [],
            captivePortal: try container.decodeIfPresent(String.self, forKey: .captivePortal),
            synthesizedAddress: try container.decodeIfPresent(IPAddress.self, forKey: .synthesizedAddress),
            reason: try container.decodeIfPresent(UnsatisfiedReason.self, forKey: .reason),
            gateways: try container.decodeIfPresent([IPAddress].self, forKey: .gateways),
            availableInterfaces: try container.decodeIfPresent([NetworkInterface].self, forKey: .availableInterfaces),
            supportsDNS: try container.decodeIfPresent(Bool.self, forKey: .supportsDNS) ?? false,
            details: try LinkDetails(from: decoder),
            quality: try container.contains(.effectiveType) ? LinkQuality(from: decoder) : nil,
            network: try container.decodeIfPresent(NetworkIdentity.self, forKey: .network),
            underlying: try container.decodeIfPresent([UnderlyingLink].self, forKey: .underlying) ?? [])
        isInternet = container.contains(.isIPv6Only)
    }

    /// Encodes the path's keys, the JSON contract of `reach --json`: `interface`, `gateway`, `supportsIPv4`,
    /// `supportsIPv6`, `isExpensive`, `reason`, `gateways`, `availableInterfaces` and `network` (``NetworkIdentity``:
    /// `id`, `label`, `ingredients`, and its settings' `metered` and `validate` where set) always (null or empty where
    /// absent); `vpn` (`true`) and `underlying` (``UnderlyingLink``s, empty when unknown) only for a VPN's path;
    /// `isIPv6Only`, `nat64Prefixes`, `advertisedDNSServers`, `captivePortal` and `supportsDNS` for the
    /// internet only, which speaks for the network as a whole;
    /// `synthesizedAddress` only for an address reached through NAT64; `host` only for a host target; and those of
    /// ``details`` that a source knows (`radioTechnology`, `accessTechnologies`, `signal`, `isRoaming`, `isMetered`,
    /// `systemConnectivity`), none without one; and with ``quality``, its keys (`effectiveType`, `rttMs`, `minRttMs`,
    /// `downlinkKbps`, `qualitySamples`, `qualityAgeMs`; see ``LinkQuality/encode(to:)``), none without.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(interface, forKey: .interface)
        try container.encode(gateway, forKey: .gateway)
        try container.encode(supportsIPv4, forKey: .supportsIPv4)
        try container.encode(supportsIPv6, forKey: .supportsIPv6)
        try container.encode(isExpensive, forKey: .isExpensive)
        try container.encode(reason, forKey: .reason)
        try container.encode(gateways, forKey: .gateways)
        try container.encode(availableInterfaces, forKey: .availableInterfaces)
        try container.encode(network, forKey: .network)
        if isVPN {
            try container.encode(true, forKey: .vpn)
            try container.encode(underlying, forKey: .underlying)
        }
        if isInternet {
            try container.encode(supportsDNS, forKey: .supportsDNS)
            try container.encode(isIPv6Only, forKey: .isIPv6Only)
            try container.encode(nat64Prefixes, forKey: .nat64Prefixes)
            try container.encode(advertisedDNSServers, forKey: .advertisedDNSServers)
            try container.encode(captivePortal, forKey: .captivePortal)
        }
        try container.encodeIfPresent(synthesizedAddress, forKey: .synthesizedAddress)
        try container.encodeIfPresent(host, forKey: .host)
        try details?.encode(to: encoder)
        try quality?.encode(to: encoder)
    }
}
