import NetworkReachabilityCore
import NetworkReachabilityPOSIX
/// A backend whose kernel is a ``SimulatedNetworkState`` a test drives by hand: the monitor, delivery, host names
/// and NAT64 run unchanged on top of it, through the evaluation the Linux backend uses. Each change is delivered
/// before the call that made it returns.
package final class SimulatedRoutingBackend: RoutingBackend {
    private let kernel = SimulatedKernel()
    private let provisioning: ProvisioningDirectory
    package let hosts: HostDirectory
    package let serviceLinkTypes = ServiceLinkTypes()
    /// The link quality tests state (``SimulatedNetwork/setQuality(_:on:)``).
    package let quality = SimulatedLinkQuality()
    package var linkQuality: (any LinkQualitySource)? { quality }
    /// The subscription the monitor has open, if any.
    private let subscription = Locked<SimulatedSubscription?>(nil)

    /// How long a change or ``settle()`` waits for the monitor before giving up.
    package static let settleSeconds = 10

    /// A network with only the loopback interface.
    package init() {
        let kernel = kernel
        hosts = HostDirectory { report in SimulatedResolver(kernel: kernel, report: report) }
        provisioning = ProvisioningDirectory { _, finish in finish(kernel.dns64Prefixes) }
    }

    package func interfaces() throws(ReachabilityError) -> [InterfaceStatus] {
        try evaluator(refreshesHosts: true, resolutionTimeout: NetworkReachability.defaultResolutionTimeout).interfaces()
    }

    package func validate(_ target: ReachabilityTarget) throws(ReachabilityError) {
        try evaluator(refreshesHosts: true, resolutionTimeout: NetworkReachability.defaultResolutionTimeout).validate(target)
    }

    package func evaluate(_ target: ReachabilityTarget, resolutionTimeout: Duration) throws(ReachabilityError)
        -> ReachabilitySnapshot
    {
        try evaluator(refreshesHosts: true, resolutionTimeout: resolutionTimeout).evaluate(target)
    }

    package func identified(_ snapshot: ReachabilitySnapshot) -> ReachabilitySnapshot {
        Self.withStatedNetwork(snapshot, kernel)
    }

    /// `snapshot` with its path's ``ReachabilityPath/network``, and its underlying links', each the one its
    /// interface is attached to, as stated.
    private static func withStatedNetwork(_ snapshot: ReachabilitySnapshot, _ kernel: SimulatedKernel) -> ReachabilitySnapshot {
        guard let index = snapshot.path.interface?.index else { return snapshot }
        let stated = { (index: Int) in kernel.state.withLock { state in state.interfaces.first { $0.index == index }?.network } }
        let network = stated(index)
        let underlying = snapshot.path.underlying.map { link in
            var identified = link
            identified.network = stated(link.interface.index)
            return identified
        }
        guard network != snapshot.path.network || underlying != snapshot.path.underlying else { return snapshot }
        var identified = snapshot
        identified.path.network = network
        identified.path.underlying = underlying
        return identified
    }

    package func subscribe() -> any RoutingSubscription {
        let (kernel, serviceLinkTypes, provisioning, hosts) = (kernel, serviceLinkTypes, provisioning, hosts)
        let opened = SimulatedSubscription { due in
            // Watched names always have an entry (made by `watch` with the caller's timeout), so this one is unused.
            let evaluator = Self.evaluator(
                kernel, serviceLinkTypes, provisioning, hosts, refreshesHosts: false,
                resolutionTimeout: NetworkReachability.defaultResolutionTimeout)
            return due.map { target in
                TargetEvaluator.evaluation(of: target.target) { () throws(ReachabilityError) in
                    Self.withStatedNetwork(try evaluator.evaluate(target.target), kernel)
                }
            }
        }
        // A DNS64 answer can change the internet's prefixes and every IPv4 address's path.
        provisioning.onChange { [weak opened] in opened?.post() }
        subscription.withLock { $0 = opened }
        return opened
    }

    private func evaluator(refreshesHosts: Bool, resolutionTimeout: Duration) -> TargetEvaluator {
        Self.evaluator(
            kernel, serviceLinkTypes, provisioning, hosts, refreshesHosts: refreshesHosts, resolutionTimeout: resolutionTimeout)
    }

    private static func evaluator(
        _ kernel: SimulatedKernel, _ serviceLinkTypes: ServiceLinkTypes, _ provisioning: ProvisioningDirectory,
        _ hosts: HostDirectory, refreshesHosts: Bool, resolutionTimeout: Duration
    ) -> TargetEvaluator {
        TargetEvaluator(
            queries: kernel, links: kernel, classifier: kernel, serviceLinkTypes: serviceLinkTypes,
            provisioning: provisioning, hosts: hosts,
            resolutionTimeout: resolutionTimeout, refreshesHosts: refreshesHosts,
            nameServersConfigured: { true })  // the simulated network's name table is its resolver
    }

    // MARK: - Driving the network

    /// Changes the network, tells the monitor, and waits until it has delivered what changed. Whatever was pending
    /// (a new listener's first snapshot) is delivered first, so that a listener added before a change hears the
    /// state before it. When `body` throws, it must not have changed anything; nothing is told then.
    ///
    /// - Parameter rediscoverDNS64: ask DNS64 again (its prefixes changed).
    package func change<Result, Failure: Error>(
        rediscoverDNS64: Bool = false, _ body: (inout SimulatedNetworkState) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        settle()
        let result = try kernel.state.withLock { (state: inout SimulatedNetworkState) throws(Failure) -> Result in
            try body(&state)
        }
        if rediscoverDNS64 { provisioning.rediscover() }
        subscription.withLock { $0 }?.post()
        settle()
        return result
    }

    /// Waits until the monitor has evaluated every change and new listener, and delivered the results.
    ///
    /// - Returns: false when it had not after ``settleSeconds``.
    @discardableResult
    package func settle() -> Bool {
        subscription.withLock { $0 }?.settle(seconds: Self.settleSeconds) ?? true
    }
}
