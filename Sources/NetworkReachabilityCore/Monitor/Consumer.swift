package import Dispatch
import Synchronization

/// One way of listening to one target: a closure listener, an async sequence, the notification bridge, a wait,
/// `reach watch`. The monitor hands it the target's first snapshot, then each one its rule calls new, on its queue
/// or, without one, straight from the monitor's thread.
package final class Consumer: Sendable {
    /// What must change before the consumer hears again.
    package enum Rule: Sendable {
        /// The status (Alamofire 5's rule): a status listener hears `.notReachable` once however the flags change
        /// beneath it, and a wait on the status hears `unknown` turn into `notReachable` with the same flags.
        case status
        /// The flags (Apple's rule): notifications never carry the same flags twice.
        case flags
        /// The flags or the path: richer views hear a new gateway or interface too.
        case snapshot
    }

    /// The target it listens to.
    package let target: ReachabilityTarget
    let rule: Rule
    /// Where it is called; `nil`: on the monitor's thread, where it must return quickly and never block.
    let queue: DispatchQueue?
    /// Whether it asked for ``ReachabilityPath/quality``: while one consumer does, the monitor measures it and paths
    /// carry it; a consumer that did not ask neither hears its changes nor sees it.
    package let measuresQuality: Bool
    private let deliver: @Sendable (ReachabilitySnapshot) -> Void
    private let finish: @Sendable (ReachabilityError?) -> Void
    private let listening = Atomic(true)
    /// Whether it has heard a snapshot. Read and written under the monitor's lock.
    private let hasHeard = Atomic(false)

    /// Makes a consumer; it hears nothing until the monitor adds it.
    ///
    /// - Parameters:
    ///   - deliver: called with each snapshot it hears.
    ///   - finish: called once when it stops listening: with `nil` when it was removed, with the error when
    ///     listening ended on its own.
    package init(
        target: ReachabilityTarget, rule: Rule, queue: DispatchQueue?, measuresQuality: Bool = false,
        deliver: @escaping @Sendable (ReachabilitySnapshot) -> Void,
        finish: @escaping @Sendable (ReachabilityError?) -> Void
    ) {
        self.target = target
        self.rule = rule
        self.queue = queue
        self.measuresQuality = measuresQuality
        self.deliver = deliver
        self.finish = finish
    }

    /// Whether it still listens: a delivery made before it stopped is dropped when its turn comes.
    package var isListening: Bool { listening.load(ordering: .acquiring) }

    /// Whether it hears `snapshot`, which follows `previous`, the target's snapshot before it; marks it heard.
    ///
    /// A consumer that has heard anything has heard every snapshot its rule calls new since, so what it heard
    /// last equals `previous` under its rule: it keeps no snapshot of its own.
    func hears(_ snapshot: ReachabilitySnapshot, after previous: ReachabilitySnapshot?) -> Bool {
        guard hasHeard.load(ordering: .relaxed), let previous else {
            hasHeard.store(true, ordering: .relaxed)
            return true
        }
        switch rule {
        case .status: return previous.status != snapshot.status
        case .flags: return previous.flags != snapshot.flags
        case .snapshot:
            // Quality is new when its class is: its figures move with every flow, and ride along with what is heard.
            return previous.withoutQuality != snapshot.withoutQuality
                || (measuresQuality && previous.path.quality?.effectiveType != snapshot.path.quality?.effectiveType)
        }
    }

    /// Hands it `snapshot`, unless it has stopped listening; without its quality unless it measures quality.
    func callAsFunction(_ snapshot: ReachabilitySnapshot) {
        guard isListening else { return }
        deliver(measuresQuality ? snapshot : snapshot.withoutQuality)
    }

    /// Stops it listening and calls its `finish`, the first time only. Returns whether this was the first time.
    @discardableResult
    func end(because error: ReachabilityError?) -> Bool {
        guard listening.exchange(false, ordering: .acquiringAndReleasing) else { return false }
        finish(error)
        return true
    }
}
