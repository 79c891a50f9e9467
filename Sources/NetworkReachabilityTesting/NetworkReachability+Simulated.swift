public import Logging
@_exported import NetworkReachabilityCore
@_exported import Dispatch

extension NetworkReachability {
    /// Watches `target` on a ``SimulatedNetwork`` instead of the host's: for tests.
    ///
    /// - Parameters:
    ///   - target: the internet, the link-local network, an address, an address pair or a host.
    ///   - network: the simulated network.
    ///   - resolutionTimeout: for a host, how long one resolution may take.
    ///   - logger: where to log; nothing is logged unless you pass a logger.
    /// - Throws: what `NetworkReachability.init(target:resolutionTimeout:logger:)` throws, against the
    ///   simulated network's interfaces and addresses.
    public convenience init(
        target: ReachabilityTarget = .internet, network: SimulatedNetwork,
        resolutionTimeout: Duration = NetworkReachability.defaultResolutionTimeout,
        logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        try self.init(target: target, monitor: network.monitor, resolutionTimeout: resolutionTimeout, logger: logger)
    }

    /// Watches one IPv4 or IPv6 address on a ``SimulatedNetwork``.
    ///
    /// - Throws: `ReachabilityError.invalidAddress(_:reason:)` or `ReachabilityError.unknownZone(_:)`.
    public convenience init(
        address: String, network: SimulatedNetwork, logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        try self.init(target: .address(IPAddress(address)), network: network, logger: logger)
    }

    /// Watches a named host on a ``SimulatedNetwork``, resolved from the names the network was given.
    ///
    /// - Throws: `ReachabilityError.invalidHostName(_:reason:)`, an address error for a bad literal, or
    ///   `ReachabilityError.invalidResolutionTimeout(_:)`.
    public convenience init(
        host: String, network: SimulatedNetwork, resolutionTimeout: Duration = NetworkReachability.defaultResolutionTimeout,
        logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        try self.init(
            target: ReachabilityTarget(hostOrAddress: host), network: network, resolutionTimeout: resolutionTimeout,
            logger: logger)
    }
}
