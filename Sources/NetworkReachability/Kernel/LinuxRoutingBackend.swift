/// The Linux backend: rtnetlink for routes, links and addresses, sysfs for interface kinds.
package final class LinuxRoutingBackend: RoutingBackend {
    private let namespace: NetworkNamespace?
    private let receiveBufferSize: Int?
    /// The synchronous reads' queries; their socket follows link notifications, so a read asks only for routes.
    private let queries: KernelQueries
    private let classifier: InterfaceClassifier
    private let provisioning = ProvisioningDirectory()
    package let hosts = HostDirectory()

    /// Makes a backend whose sockets open in `namespace` (the caller's when `nil`).
    ///
    /// - Parameters:
    ///   - sysfsRoot: where `class/net` lives, `/sys` unless a test supplies a fixture tree.
    ///   - receiveBufferSize: `SO_RCVBUF` of the subscription, small in overflow tests.
    package init(namespace: NetworkNamespace? = nil, sysfsRoot: String = "/sys", receiveBufferSize: Int? = nil) {
        self.namespace = namespace
        self.receiveBufferSize = receiveBufferSize
        classifier = InterfaceClassifier(sysfsRoot: sysfsRoot)
        queries = KernelQueries(namespace: namespace, followsLinks: true)
    }

    package func validate(_ target: ReachabilityTarget) throws(ReachabilityError) {
        try evaluator(resolutionTimeout: NetworkReachability.defaultResolutionTimeout).validate(target)
    }

    package func evaluate(
        _ target: ReachabilityTarget, resolutionTimeout: Duration
    ) throws(ReachabilityError) -> ReachabilitySnapshot {
        try evaluator(resolutionTimeout: resolutionTimeout).evaluate(target)
    }

    package func subscribe() throws(ReachabilityError) -> any RoutingSubscription {
        try NetlinkSubscription(
            namespace: namespace, classifier: classifier, hosts: hosts, provisioning: provisioning,
            receiveBufferSize: receiveBufferSize)
    }

    private func evaluator(resolutionTimeout: Duration) -> TargetEvaluator {
        TargetEvaluator(
            queries: queries, links: queries.followedLinks(), classifier: classifier, provisioning: provisioning,
            hosts: hosts, resolutionTimeout: resolutionTimeout, refreshesHosts: true)
    }
}

extension ReachabilityMonitor {
    /// The monitor of the process's own network namespace: the one kernel subscription every object shares.
    package static let system = ReachabilityMonitor(backend: LinuxRoutingBackend())
}
