@_exported import NetworkReachabilityCore
@_exported import Dispatch
public import Logging

@_exported import NetworkReachabilityLinux

extension NetworkReachability {
    /// Watches `target`.
    ///
    /// - Parameters:
    ///   - target: the internet, the link-local network, an address, an address pair or a host.
    ///   - resolutionTimeout: for a host, how long one resolution may take before it counts as timed out.
    ///   - logger: where to log; nothing is logged unless you pass a logger.
    /// - Throws: `ReachabilityError.unknownZone(_:)` when an IPv6 zone names no interface,
    ///   `ReachabilityError.localAddressNotOwned(_:)` or `ReachabilityError.familyMismatch(local:remote:)`
    ///   for a bad address pair; `ReachabilityError.invalidResolutionTimeout(_:)` for a timeout not above zero
    ///   or over `NetworkReachability.maximumResolutionTimeout`. The internet and link-local targets never throw otherwise.
    public convenience init(
        target: ReachabilityTarget, resolutionTimeout: Duration = NetworkReachability.defaultResolutionTimeout,
        logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        try self.init(target: target, monitor: .system, resolutionTimeout: resolutionTimeout, logger: logger)
    }

    /// Watches `target` through interfaces of `requiredInterfaceType` only, as NWPathMonitor's initializer of that
    /// name does: reachable only when a route carries it out of such an interface (the kernel is asked for the route
    /// out of each one), else not reachable for `UnsatisfiedReason.prohibitedInterfaceType`.
    ///
    /// - Throws: as ``init(target:resolutionTimeout:logger:)``.
    public convenience init(
        target: ReachabilityTarget, requiredInterfaceType: NetworkInterface.InterfaceType,
        resolutionTimeout: Duration = NetworkReachability.defaultResolutionTimeout,
        logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        try self.init(
            target: .restricted(target, InterfaceRestriction(requiredType: requiredInterfaceType)),
            resolutionTimeout: resolutionTimeout, logger: logger)
    }

    /// Watches `target` through interfaces of any type but `prohibitedInterfaceTypes`, as NWPathMonitor's
    /// initializer of that name does; `[.cellular]` is ashleymills' `allowsCellularConnection = false`.
    ///
    /// - Throws: as ``init(target:resolutionTimeout:logger:)``.
    public convenience init(
        target: ReachabilityTarget, prohibitedInterfaceTypes: Set<NetworkInterface.InterfaceType>,
        resolutionTimeout: Duration = NetworkReachability.defaultResolutionTimeout,
        logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        try self.init(
            target: .restricted(target, InterfaceRestriction(prohibitedTypes: prohibitedInterfaceTypes)),
            resolutionTimeout: resolutionTimeout, logger: logger)
    }

    /// Watches the internet through interfaces of `requiredInterfaceType` only, as `NWPathMonitor(requiredInterfaceType:)`
    /// does; see ``init(target:requiredInterfaceType:resolutionTimeout:logger:)`` for other targets.
    public convenience init(requiredInterfaceType: NetworkInterface.InterfaceType, logger: Logger = NetworkReachability.silentLogger) {
        self.init(
            validatedTarget: .restricted(.internet, InterfaceRestriction(requiredType: requiredInterfaceType)), monitor: .system,
            resolutionTimeout: Self.defaultResolutionTimeout, logger: logger)
    }

    /// Watches the internet through interfaces of any type but `prohibitedInterfaceTypes`, as
    /// `NWPathMonitor(prohibitedInterfaceTypes:)` does; see
    /// ``init(target:prohibitedInterfaceTypes:resolutionTimeout:logger:)`` for other targets.
    public convenience init(
        prohibitedInterfaceTypes: Set<NetworkInterface.InterfaceType>, logger: Logger = NetworkReachability.silentLogger
    ) {
        self.init(
            validatedTarget: .restricted(.internet, InterfaceRestriction(prohibitedTypes: prohibitedInterfaceTypes)),
            monitor: .system, resolutionTimeout: Self.defaultResolutionTimeout, logger: logger)
    }

    /// Watches the internet: a default or split-default route, IPv4 or IPv6 (Apple's `0.0.0.0`).
    public convenience init(logger: Logger = NetworkReachability.silentLogger) {
        self.init(validatedTarget: .internet, monitor: .system, resolutionTimeout: Self.defaultResolutionTimeout, logger: logger)
    }

    /// Watches one IPv4 or IPv6 address, such as `192.0.2.1` or `fe80::1%eth0`.
    ///
    /// - Throws: `ReachabilityError.invalidAddress(_:reason:)` or `ReachabilityError.unknownZone(_:)`.
    public convenience init(address: String, logger: Logger = NetworkReachability.silentLogger) throws(ReachabilityError) {
        try self.init(target: .address(IPAddress(address)), logger: logger)
    }

    /// Watches `remoteAddress` as reached from `localAddress`, which must be one of this host's addresses.
    ///
    /// - Throws: `ReachabilityError.invalidAddress(_:reason:)`, `ReachabilityError.localAddressNotOwned(_:)`
    ///   or `ReachabilityError.familyMismatch(local:remote:)`.
    public convenience init(
        localAddress: String, remoteAddress: String, logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        try self.init(target: .addressPair(local: IPAddress(localAddress), remote: IPAddress(remoteAddress)), logger: logger)
    }

    /// Watches a named host, as Apple's `reachabilityWithHostName` does, without ever blocking the caller.
    ///
    /// The name is resolved off the caller's thread with `getaddrinfo` (so `/etc/hosts`, nsswitch and the
    /// system's DNS apply), and again whenever the network or the resolver configuration changes. Until the first
    /// resolution ends the status is `unknown`; then the host is reachable when any of its addresses is. A name
    /// that does not resolve is `notReachable`, and the path's `ReachabilityPath.host` says why.
    /// An IP literal is watched as an address, without DNS.
    ///
    /// - Parameters:
    ///   - host: a host name (internationalized names are accepted) or an IP literal.
    ///   - resolutionTimeout: how long one resolution may take before it counts as timed out.
    ///   - logger: where to log; nothing is logged unless you pass a logger.
    /// - Throws: `ReachabilityError.invalidHostName(_:reason:)` (empty, over 253 octets, a label over 63,
    ///   characters no host name can hold), an address error for a bad literal, or
    ///   `ReachabilityError.invalidResolutionTimeout(_:)`.
    public convenience init(
        host: String, resolutionTimeout: Duration = NetworkReachability.defaultResolutionTimeout,
        logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        try self.init(target: ReachabilityTarget(hostOrAddress: host), resolutionTimeout: resolutionTimeout, logger: logger)
    }

    /// Watches the host of a URL, such as `https://api.example.com/v1`: the scheme, port and path play no part in
    /// routing, so the URL is reachable when its host is (a name as ``init(host:resolutionTimeout:logger:)``
    /// watches it, an IP literal as an address). With Foundation's `URL`, pass `url.absoluteString`.
    ///
    /// - Throws: `ReachabilityError.invalidURL(_:reason:)` without a scheme or host, or what
    ///   ``init(host:resolutionTimeout:logger:)`` throws for the host.
    public convenience init(
        url: String, resolutionTimeout: Duration = NetworkReachability.defaultResolutionTimeout,
        logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        try self.init(target: ReachabilityTarget(url: url), resolutionTimeout: resolutionTimeout, logger: logger)
    }

    /// Watches the link-local network (Apple's `169.254.0.0`): an up, carrier-holding, non-loopback
    /// interface with an IPv4 `169.254/16` or IPv6 `fe80::/10` address.
    public static func linkLocal(logger: Logger = NetworkReachability.silentLogger) -> NetworkReachability {
        NetworkReachability(
            validatedTarget: .linkLocal, monitor: .system, resolutionTimeout: defaultResolutionTimeout, logger: logger)
    }

    /// Every interface of this host with its type, state, carrier and addresses, and which carry the internet:
    /// `networkctl`'s list, read from the kernel now (one round trip each for links, addresses and the internet);
    /// with each interface's `InterfaceStatus.details` where a source of them runs (`NetworkReachabilityRadio`).
    ///
    /// - Throws: `ReachabilityError.systemCallFailed(call:errno:)` when the kernel cannot be asked.
    public static func interfaces() throws(ReachabilityError) -> [InterfaceStatus] {
        try ReachabilityMonitor.system.interfaces()
    }

    /// The internet's reachability, shared: Alamofire's `NetworkReachabilityManager.default`.
    ///
    /// Optional as Alamofire's is, so that ported code such as `NetworkReachability.default?.startListening { … }`
    /// compiles unchanged; it is never `nil`.
    public static let `default`: NetworkReachability? = NetworkReachability()
}

extension ReachabilityWorkQueue {
    /// Makes a queue that runs jobs while the internet is reachable (the default route).
    ///
    /// - Parameters:
    ///   - retryPolicy: how a failing job is retried.
    ///   - logger: where each failed, interrupted and retried attempt is logged (debug; a job that gives up, warning);
    ///     nothing is logged unless you pass a logger.
    /// - Throws: the kernel subscription's error when it cannot be opened.
    public convenience init(
        retryPolicy: RetryPolicy = .standard, logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        try self.init(reachability: NetworkReachability(), retryPolicy: retryPolicy, logger: logger)
    }
}

extension NetworkPathMonitor {
    /// Watches the internet's path, as `NWPathMonitor()` does.
    public convenience init(logger: Logger = NetworkReachability.silentLogger) {
        self.init(reachability: NetworkReachability(logger: logger))
    }

    /// Watches the internet's path through interfaces of `requiredInterfaceType` only, as
    /// `NWPathMonitor(requiredInterfaceType:)` does.
    public convenience init(requiredInterfaceType: NetworkInterface.InterfaceType, logger: Logger = NetworkReachability.silentLogger) {
        self.init(reachability: NetworkReachability(requiredInterfaceType: requiredInterfaceType, logger: logger))
    }

    /// Watches the internet's path through interfaces of any type but `prohibitedInterfaceTypes` (an array, as
    /// `NWPathMonitor(prohibitedInterfaceTypes:)` takes).
    public convenience init(
        prohibitedInterfaceTypes: [NetworkInterface.InterfaceType], logger: Logger = NetworkReachability.silentLogger
    ) {
        self.init(reachability: NetworkReachability(prohibitedInterfaceTypes: Set(prohibitedInterfaceTypes), logger: logger))
    }
}
