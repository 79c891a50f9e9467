/// A backend whose kernel is a ``SimulatedNetworkState`` a test drives by hand: the monitor, delivery,
/// host names and NAT64 run unchanged on top of it, and each change is delivered before the call that
/// made it returns.
package final class SimulatedRoutingBackend: RoutingBackend {
    private let kernel = SimulatedKernel()
    private let hosts: HostDirectory
    private let provisioning: ProvisioningDirectory
    /// Synchronous reads batch as the Linux backend's do, so the simulation runs that code too.
    private let unroutedHint = UnroutedReadHint()
    /// The subscription the monitor has open, if any.
    private let source: Locked<SimulatedChangeSource?>
    package let monitor: ReachabilityMonitor

    /// How long a change or ``settle()`` waits for the monitor before giving up.
    package static let settleSeconds = 10

    /// A network with only the loopback interface.
    package init() {
        let kernel = kernel
        let hosts = HostDirectory { report in SimulatedResolver(kernel: kernel, report: report) }
        let provisioning = ProvisioningDirectory { _, finish in finish(kernel.dns64Prefixes) }
        let source = Locked<SimulatedChangeSource?>(nil)
        self.hosts = hosts
        self.provisioning = provisioning
        self.source = source
        monitor = ReachabilityMonitor(hosts: hosts, provisioning: provisioning) {
            let opened = SimulatedChangeSource { targets, groups in
                // Watched names always have an entry (made by `watch` with the caller's timeout), so this one is unused.
                Self.evaluator(
                    kernel: kernel, hosts: hosts, provisioning: provisioning, refresh: false,
                    resolutionTimeout: NetworkReachability.defaultResolutionTimeout
                ).evaluate(targets, sharing: groups)
            }
            source.withLock { $0 = opened }
            return opened
        }
    }

    package func validate(_ target: ReachabilityTarget) throws(ReachabilityError) {
        try Self.evaluator(
            kernel: kernel, hosts: hosts, provisioning: provisioning, refresh: true,
            resolutionTimeout: NetworkReachability.defaultResolutionTimeout
        ).validate(target)
    }

    package func evaluate(_ target: ReachabilityTarget, resolutionTimeout: Duration) throws(ReachabilityError)
        -> ReachabilitySnapshot
    {
        try readEvaluator(resolutionTimeout).evaluate(target)
    }

    package func flags(of target: ReachabilityTarget, resolutionTimeout: Duration) throws(ReachabilityError)
        -> ReachabilityFlags
    {
        try readEvaluator(resolutionTimeout).flags(of: target)
    }

    private func readEvaluator(_ resolutionTimeout: Duration) -> TargetEvaluator {
        var evaluator = Self.evaluator(
            kernel: kernel, hosts: hosts, provisioning: provisioning, refresh: true, resolutionTimeout: resolutionTimeout)
        evaluator.unroutedHint = unroutedHint
        return evaluator
    }

    private static func evaluator(
        kernel: SimulatedKernel, hosts: HostDirectory, provisioning: ProvisioningDirectory, refresh: Bool,
        resolutionTimeout: Duration
    ) -> TargetEvaluator {
        TargetEvaluator(
            queries: kernel, links: kernel, classifier: kernel,
            hostResolution: .init(hosts: hosts, timeout: resolutionTimeout, refresh: refresh),
            provisioning: provisioning)
    }

    // MARK: - Driving the network

    /// Changes the network, tells the monitor, and waits until it has delivered what changed. When `body`
    /// throws, it must not have changed anything; nothing is told then.
    ///
    /// - Parameter rediscoverDNS64: ask DNS64 again (its prefixes changed).
    package func change<Result, Failure: Error>(
        rediscoverDNS64: Bool = false, _ body: (inout SimulatedNetworkState) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let result = try kernel.state.withLock { (state: inout SimulatedNetworkState) throws(Failure) -> Result in
            defer { state.revision += 1 }
            return try body(&state)
        }
        if rediscoverDNS64 { provisioning.rediscover() }
        source.withLock { $0 }?.post()
        settle()
        return result
    }

    /// Waits until the monitor has evaluated every change and new listener, and delivered the results.
    ///
    /// - Returns: false when it had not after ``settleSeconds``.
    @discardableResult
    package func settle() -> Bool {
        source.withLock { $0 }?.settle(seconds: Self.settleSeconds) ?? true
    }
}
