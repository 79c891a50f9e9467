/// The Linux backend: rtnetlink for routes, links and addresses, sysfs for interface kinds.
package final class LinuxRoutingBackend: RoutingBackend {
    /// The backend of the process's own network namespace; its monitor is the one shared subscription.
    package static let system = LinuxRoutingBackend()

    private let queries: KernelQueries
    private let classifier: InterfaceClassifier
    package let monitor: ReachabilityMonitor

    /// Makes a backend whose sockets open in `namespace` (the caller's when `nil`).
    ///
    /// - Parameters:
    ///   - sysfsRoot: where `class/net` lives, `/sys` unless a test supplies a fixture tree.
    ///   - receiveBufferSize: `SO_RCVBUF` of the subscription, small in overflow tests.
    package init(namespace: NetworkNamespace? = nil, sysfsRoot: String = "/sys", receiveBufferSize: Int? = nil) {
        let classifier = InterfaceClassifier(sysfsRoot: sysfsRoot)
        self.classifier = classifier
        queries = KernelQueries(namespace: namespace)
        monitor = ReachabilityMonitor { () throws(ReachabilityError) -> any RoutingChangeSource in
            try NetlinkChangeSource(namespace: namespace, classifier: classifier, receiveBufferSize: receiveBufferSize)
        }
    }

    package func validate(_ target: ReachabilityTarget) throws(ReachabilityError) {
        try TargetEvaluator(queries: queries, links: queries, classifier: classifier).validate(target)
    }

    package func evaluate(_ target: ReachabilityTarget) throws(ReachabilityError) -> ReachabilitySnapshot {
        try TargetEvaluator(queries: queries, links: queries, classifier: classifier).evaluate(target)
    }
}
