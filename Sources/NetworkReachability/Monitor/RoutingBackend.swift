/// The narrow interface between the platform-independent monitor and public type, and one platform's kernel.
///
/// Linux implements it with rtnetlink (`LinuxRoutingBackend`); another platform is one more
/// implementation in its own folder, with no change to the API.
package protocol RoutingBackend: AnyObject, Sendable {
    /// Checks what can be checked up front: zones name interfaces, a pair's local address is this host's.
    func validate(_ target: ReachabilityTarget) throws(ReachabilityError)
    /// Evaluates a target now, asking the kernel. A host target answers from its latest resolution at once
    /// (pending before the first ends) and is resolved again in the background, within `resolutionTimeout`.
    func evaluate(_ target: ReachabilityTarget, resolutionTimeout: Duration) throws(ReachabilityError) -> ReachabilitySnapshot
    /// The flags ``evaluate(_:resolutionTimeout:)`` would give, without describing a path the flags do not need.
    func flags(of target: ReachabilityTarget, resolutionTimeout: Duration) throws(ReachabilityError) -> ReachabilityFlags
    /// The monitor that serves every listening object of this backend through one subscription.
    var monitor: ReachabilityMonitor { get }
}

/// What one pass of waiting on the kernel brought.
package enum RoutingChange: Sendable, Equatable {
    /// Messages that can change answers arrived and were applied; what they touched.
    case changed(NetworkChanges)
    /// Only what routers advertise (NAT64 prefixes, DNS servers, portal) changed or lapsed.
    case advertisementsChanged
    /// The socket overflowed (`ENOBUFS`); the state was re-read in full.
    case resynchronized
    /// Only a wake-up: new registrations, or hosts with a new resolution, may be waiting for evaluation.
    case woken
    /// `/etc/resolv.conf` or `/etc/hosts` changed: host names must be resolved again.
    case resolverConfigurationChanged
    /// The subscription failed and cannot go on.
    case failed(ReachabilityError)
}

/// A live subscription to kernel changes. Used from the monitor's thread, except ``wake()``.
package protocol RoutingChangeSource: AnyObject, Sendable {
    /// Blocks until kernel messages or a wake-up arrive, then drains every message that is ready.
    func waitForChanges() -> RoutingChange
    /// Makes a blocked ``waitForChanges()`` return; safe from any thread.
    func wake()
    /// Evaluates targets against the subscription's current view of the links, in order, batching the
    /// kernel lookups they share; each with what its answer rests on. The members of each of `groups`
    /// (positions in `targets`) may be answered by one lookup, where the kernel's policy allows it.
    func evaluate(_ targets: [ReachabilityTarget], sharing groups: [SharedRouteGroup]) -> [TargetEvaluation]
    /// Closes every descriptor of the subscription.
    func close()
    /// What the subscription has counted so far.
    var statistics: MonitorStatistics { get }
    /// The descriptors it holds open, so tests can prove a stop closes them.
    var descriptors: [Int32] { get }
}

/// Counters kept by a subscription, for tests, logs and `reach watch --verbose`.
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
    /// however they were batched: with ``targetEvaluations``, this shows what a pass cost the kernel.
    public var kernelRequests = 0

    /// Makes empty counters.
    public init() {}
}

/// One target's answer from a pass of the monitor, and what it rests on.
package struct TargetEvaluation: Sendable {
    /// The snapshot, or why the kernel could not be asked.
    package var result: Result<ReachabilitySnapshot, ReachabilityError>
    /// What a later change must touch to change the answer.
    package var dependency: TargetDependency

    /// Moves the result out, leaving a placeholder failure: a monitor pass keeps each snapshot once, and a copy
    /// retained its path only to release it with the list.
    mutating func takeResult() -> Result<ReachabilitySnapshot, ReachabilityError> {
        var taken = Result<ReachabilitySnapshot, ReachabilityError>.failure(.timedOut(.zero))
        swap(&taken, &result)
        return taken
    }

    /// Moves the dependency out, leaving an empty one: the monitor's index keeps it, and a copy retained its
    /// destinations.
    mutating func takeDependency() -> TargetDependency {
        var taken = TargetDependency()
        swap(&taken, &dependency)
        return taken
    }
}
