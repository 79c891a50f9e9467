/// One platform's way of answering reachability: reads now, and a subscription to its changes.
///
/// The monitor and the public type know only this protocol and the model's values; Linux implements it with
/// rtnetlink (`LinuxRoutingBackend`), tests with a simulated network. Another platform is one more implementation
/// in a folder of its own.
package protocol RoutingBackend: AnyObject, Sendable {
    /// The host names this backend's targets resolve through, shared by reads and the monitor.
    var hosts: HostDirectory { get }
    /// What system services say links are, where the backend cannot tell (a PPP link that is a modem's): every
    /// evaluation, read or pass, describes links through it. The monitor fills it from its ``LinkDetailsSource``.
    var serviceLinkTypes: ServiceLinkTypes { get }
    /// Checks what can be checked up front: zones name interfaces, a pair's local address is this host's.
    func validate(_ target: ReachabilityTarget) throws(ReachabilityError)
    /// Evaluates a target now. A host target answers from its latest resolution at once (pending before the first
    /// ends) and is resolved again in the background, within `resolutionTimeout`.
    func evaluate(_ target: ReachabilityTarget, resolutionTimeout: Duration) throws(ReachabilityError) -> ReachabilitySnapshot
    /// `snapshot`, which a read evaluated, with its path's ``ReachabilityPath/network``: asked apart from the
    /// evaluation because it costs the kernel questions a read of the flags alone does not need.
    func identified(_ snapshot: ReachabilitySnapshot) -> ReachabilitySnapshot
    /// Every interface with its state and addresses, and which carry the internet.
    func interfaces() throws(ReachabilityError) -> [InterfaceStatus]
    /// Opens a subscription to the platform's changes; the monitor's thread uses it until it closes it.
    func subscribe() throws(ReachabilityError) -> any RoutingSubscription
    /// The platform's passive reader of link quality, if it has one; the monitor starts it only while a consumer
    /// measures quality.
    var linkQuality: (any LinkQualitySource)? { get }
}

extension RoutingBackend {
    /// No network identities: every path's network is unknown.
    package func identified(_ snapshot: ReachabilitySnapshot) -> ReachabilitySnapshot { snapshot }

    /// No reader of link quality: every path's quality is unknown.
    package var linkQuality: (any LinkQualitySource)? { nil }
}

/// A live subscription to a platform's changes. Used from the monitor's thread, except ``wake()``.
package protocol RoutingSubscription: AnyObject, Sendable {
    /// Blocks until changes or a wake-up arrive, then drains everything that is ready.
    func waitForChanges() -> RoutingChange
    /// Makes a blocked ``waitForChanges()`` return; safe from any thread.
    func wake()
    /// Begins a pass over the targets `changes` made due (no changes: targets due for another reason). What the pass
    /// learns once for all its parts lives in the pass the monitor holds, and ends with it: the subscription keeps
    /// only what outlasts a pass.
    func beginPass(after changes: NetworkChanges) -> any RoutingPass
    /// Closes every descriptor of the subscription.
    func close()
    /// What the subscription has counted so far.
    var statistics: MonitorStatistics { get }
    /// The descriptors it holds open, so tests can prove a stop closes them.
    var descriptors: [Int32] { get }
}

/// One pass of the monitor, from its first part's evaluation to its last: made by
/// ``RoutingSubscription/beginPass(after:)`` and dropped when the pass ends. Used from the monitor's thread.
package protocol RoutingPass: AnyObject {
    /// Evaluates one part's targets against the subscription's current view of the network, answers in order, each
    /// with what it rests on.
    func evaluate(_ targets: [DueTarget]) -> [TargetEvaluation]
}

/// What one wait on a subscription brought.
package enum RoutingChange: Sendable, Equatable {
    /// The network changed; what it touched.
    case changed(NetworkChanges)
    /// The resolver configuration changed: host names must be resolved again.
    case resolverConfigurationChanged
    /// Only a wake-up: new consumers, or hosts with a new resolution, may be waiting for evaluation.
    case woken
    /// The subscription failed and cannot go on.
    case failed(ReachabilityError)
}

/// A target a monitor pass evaluates.
package struct DueTarget: Sendable {
    /// The target.
    package let target: ReachabilityTarget
    /// What its last answer rested on; `nil` when it is due for a reason of its own (new, or its host or the
    /// network's NAT64 prefixes moved), so that nothing of the last answer may be reused.
    package let previous: TargetDependency?

    /// Makes a due target.
    package init(_ target: ReachabilityTarget, previous: TargetDependency? = nil) {
        self.target = target
        self.previous = previous
    }
}

/// One target's answer from a pass of the monitor, and what it rests on.
package struct TargetEvaluation: Sendable {
    /// The snapshot, or why it could not be had.
    package var result: Result<ReachabilitySnapshot, ReachabilityError>
    /// What a later change must touch to change the answer; ``TargetDependency/always`` for a failure.
    package var dependency: TargetDependency

    /// Makes an evaluation.
    package init(result: Result<ReachabilitySnapshot, ReachabilityError>, dependency: TargetDependency) {
        self.result = result
        self.dependency = dependency
    }
}

/// Counters kept by the monitor and its subscriptions, for tests, logs and `reach watch --verbose`.
public struct MonitorStatistics: Sendable, Hashable {
    /// Messages dropped because they could not be parsed.
    public var malformedMessages = 0
    /// Datagrams dropped because a user-space process, not the kernel, sent them.
    public var foreignMessages = 0
    /// Times the socket overflowed and the whole state was re-read.
    public var resynchronizations = 0
    /// Target evaluations made after changes and for new listeners: each distinct target counts once per
    /// pass. Targets that a change cannot touch are not evaluated, so this shows how much work changes cost.
    public var targetEvaluations = 0
    /// Requests the subscription sent the kernel to evaluate targets (route lookups, link and rule queries),
    /// however many went in one `send`: with ``targetEvaluations``, this shows what a pass cost the kernel.
    public var kernelRequests = 0

    /// Makes empty counters.
    public init() {}

    /// These counters and `other`'s, added.
    func adding(_ other: MonitorStatistics) -> MonitorStatistics {
        var total = self
        total.malformedMessages += other.malformedMessages
        total.foreignMessages += other.foreignMessages
        total.resynchronizations += other.resynchronizations
        total.targetEvaluations += other.targetEvaluations
        total.kernelRequests += other.kernelRequests
        return total
    }
}
