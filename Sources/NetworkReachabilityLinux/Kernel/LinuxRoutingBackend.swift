package import NetworkReachabilityCore
import NetworkReachabilityPOSIX
import Synchronization

/// The Linux backend: rtnetlink for routes, links and addresses, sysfs for interface kinds.
package final class LinuxRoutingBackend: RoutingBackend {
    private let namespace: NetworkNamespace?
    private let receiveBufferSize: Int?
    /// The synchronous reads' queries; their socket follows link notifications, so a read asks only for routes.
    private let queries: KernelQueries
    private let classifier: InterfaceClassifier
    private let provisioning = ProvisioningDirectory(discover: NAT64Discovery.discover)
    package let hosts = HostDirectory { HostResolver(lookUp: { SystemCall.resolve($0) }, report: $0) }
    package let serviceLinkTypes = ServiceLinkTypes()
    /// The passive reader of link quality (sock_diag), started by the monitor only while a consumer measures it.
    package let linkQuality: (any LinkQualitySource)?
    /// Whether the last read of an IPv4 address found no route of its own. An IPv4 address no route carries needs
    /// the IPv4 internet's route too (NAT64 may carry it unless that one is usable), so while this holds the next such
    /// read asks it along with its own lookup: a repeated unrouted read is one round trip, not two (`Benchmarks/`,
    /// flags read, no route). A wrong guess costs a round trip, never a stale answer: what goes along is asked in the
    /// same exchange.
    private let lastIPv4ReadWasUnrouted = Atomic(false)

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
        linkQuality = LinuxQualitySource(namespace: namespace)
    }

    package func interfaces() throws(ReachabilityError) -> [InterfaceStatus] {
        try evaluator(resolutionTimeout: NetworkReachability.defaultResolutionTimeout).interfaces()
    }

    package func validate(_ target: ReachabilityTarget) throws(ReachabilityError) {
        try evaluator(resolutionTimeout: NetworkReachability.defaultResolutionTimeout).validate(target)
    }

    package func evaluate(
        _ target: ReachabilityTarget, resolutionTimeout: Duration
    ) throws(ReachabilityError) -> ReachabilitySnapshot {
        let evaluator = evaluator(resolutionTimeout: resolutionTimeout)
        guard case .address(let address) = target, address.zone == nil, address.family == .ipv4 else {
            return try evaluator.evaluate(target)
        }
        let snapshot: ReachabilitySnapshot
        if lastIPv4ReadWasUnrouted.load(ordering: .relaxed) {
            let answers = try queries.lookupRoutes(to: [address, TargetEvaluator.internetProbeIPv4])
            guard answers.count == 2 else { throw .malformedKernelReply("route lookup answers") }
            evaluator.useInternetAnswer(ipv4: answers[1])
            snapshot = try evaluator.evaluate(address, answer: answers[0])
        } else {
            snapshot = try evaluator.evaluate(target)
        }
        lastIPv4ReadWasUnrouted.store(snapshot.flags.isEmpty || snapshot.path.synthesizedAddress != nil, ordering: .relaxed)
        return snapshot
    }

    package func identified(_ snapshot: ReachabilitySnapshot) -> ReachabilitySnapshot {
        let identities = NetworkIdentityReader.forRead(queries: queries, links: queries.followedLinks())
        identities.seed(from: [snapshot])
        // A failed lookup of the gateway leaves the path without an identity, not the read without an answer.
        return (try? identities.identified(snapshot)) ?? snapshot
    }

    package func subscribe() throws(ReachabilityError) -> any RoutingSubscription {
        try NetlinkSubscription(
            namespace: namespace, classifier: classifier, serviceLinkTypes: serviceLinkTypes, hosts: hosts,
            provisioning: provisioning, receiveBufferSize: receiveBufferSize)
    }

    private func evaluator(resolutionTimeout: Duration) -> TargetEvaluator {
        TargetEvaluator(
            queries: queries, links: queries.followedLinks(), classifier: classifier,
            serviceLinkTypes: serviceLinkTypes, provisioning: provisioning, hosts: hosts, resolutionTimeout: resolutionTimeout,
            refreshesHosts: true,
            nameServersConfigured: ResolverConfiguration.namesAServer)
    }
}

extension ReachabilityMonitor {
    /// The monitor of the process's own network namespace: the one kernel subscription every object shares.
    package static let system = ReachabilityMonitor(backend: LinuxRoutingBackend())
}
