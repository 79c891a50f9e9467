/// The Linux backend: rtnetlink for routes, links and addresses, sysfs for interface kinds.
package final class LinuxRoutingBackend: RoutingBackend {
    /// The backend of the process's own network namespace; its monitor is the one shared subscription.
    package static let system = LinuxRoutingBackend()

    private let queries: KernelQueries
    private let classifier: InterfaceClassifier
    private let hosts = HostDirectory()
    private let provisioning = ProvisioningDirectory()
    private let unroutedHint = UnroutedReadHint()
    package let monitor: ReachabilityMonitor

    /// Makes a backend whose sockets open in `namespace` (the caller's when `nil`).
    ///
    /// - Parameters:
    ///   - sysfsRoot: where `class/net` lives, `/sys` unless a test supplies a fixture tree.
    ///   - receiveBufferSize: `SO_RCVBUF` of the subscription, small in overflow tests.
    package init(namespace: NetworkNamespace? = nil, sysfsRoot: String = "/sys", receiveBufferSize: Int? = nil) {
        let classifier = InterfaceClassifier(sysfsRoot: sysfsRoot)
        self.classifier = classifier
        queries = KernelQueries(namespace: namespace, followsLinks: true)
        let hosts = hosts
        let provisioning = provisioning
        monitor = ReachabilityMonitor(hosts: hosts, provisioning: provisioning) {
            () throws(ReachabilityError) -> any RoutingChangeSource in
            try NetlinkChangeSource(
                namespace: namespace, classifier: classifier, hosts: hosts, provisioning: provisioning,
                receiveBufferSize: receiveBufferSize)
        }
    }

    /// Kernel round trips made by synchronous reads and validation so far.
    package var synchronousExchangeCount: Int { queries.exchangeCount }

    /// Kernel requests (route lookups, link queries) sent by synchronous reads and validation so far.
    package var synchronousRequestCount: Int { queries.requestCount }

    package func validate(_ target: ReachabilityTarget) throws(ReachabilityError) {
        try evaluator(resolutionTimeout: NetworkReachability.defaultResolutionTimeout).validate(target)
    }

    /// One round trip per read: links come from the notifications the same socket carries, and an unrouted
    /// IPv4 address's NAT64 probes ride along when the last read was unrouted too.
    package func evaluate(
        _ target: ReachabilityTarget, resolutionTimeout: Duration
    ) throws(ReachabilityError) -> ReachabilitySnapshot {
        try evaluator(resolutionTimeout: resolutionTimeout).evaluate(target)
    }

    package func flags(
        of target: ReachabilityTarget, resolutionTimeout: Duration
    ) throws(ReachabilityError) -> ReachabilityFlags {
        try evaluator(resolutionTimeout: resolutionTimeout).flags(of: target)
    }

    private func evaluator(resolutionTimeout: Duration) -> TargetEvaluator {
        TargetEvaluator(
            queries: queries, links: queries.followedLinks(), classifier: classifier,
            hostResolution: .init(hosts: hosts, timeout: resolutionTimeout, refresh: true),
            provisioning: provisioning, unroutedHint: unroutedHint)
    }
}
