import NetworkReachabilityPOSIX

/// One wait for a snapshot that satisfies a condition.
///
/// It ends exactly once, by the first of: a matching snapshot, the timeout (on the object's clock), the task's
/// cancellation, or the end of listening. Then it stops observing and cancels its timer, so nothing of it outlives
/// the wait.
final class SnapshotWait: Sendable {
    typealias Condition = @Sendable (ReachabilitySnapshot) -> Bool

    private struct State {
        var continuation: CheckedContinuation<ReachabilitySnapshot, any Error>?
        var outcome: Result<ReachabilitySnapshot, any Error>?
        var consumer: Consumer?
        var timer: Task<Void, Never>?
    }

    private let reachability: NetworkReachability
    private let condition: Condition
    private let timeout: Duration?
    private let rule: Consumer.Rule
    private let measuresQuality: Bool?
    // Guarded by its lock; the continuation is resumed and the consumer removed only outside it.
    private let state = Locked(State())

    /// A wait that hears what `rule` calls new (the status unless given), measuring quality when `measuresQuality`
    /// says so (as the object says, when `nil`).
    init(
        reachability: NetworkReachability, timeout: Duration?, rule: Consumer.Rule = .status,
        measuresQuality: Bool? = nil, condition: @escaping Condition
    ) {
        self.reachability = reachability
        self.timeout = timeout
        self.rule = rule
        self.measuresQuality = measuresQuality
        self.condition = condition
    }

    /// Suspends until the wait ends; returns the matching snapshot or throws why it ended without one.
    func run() async throws -> ReachabilitySnapshot {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                start(continuation)
            }
        } onCancel: {
            end(.failure(CancellationError()))
        }
    }

    private func start(_ continuation: CheckedContinuation<ReachabilitySnapshot, any Error>) {
        let endedEarly = state.withLock { state -> Result<ReachabilitySnapshot, any Error>? in
            if let outcome = state.outcome { return outcome }  // cancelled before it started
            state.continuation = continuation
            return nil
        }
        if let endedEarly {
            continuation.resume(with: endedEarly)
            return
        }
        if let timeout { schedule(timeout) }
        do {
            let consumer = try reachability.addConsumer(rule: rule, measuresQuality: measuresQuality) { [weak self] snapshot in
                guard let self, condition(snapshot) else { return }
                end(.success(snapshot))
            } finish: { [weak self, reachability] in
                // Also called when the wait removes itself; only the first end counts.
                self?.end(.failure(reachability.listeningFailure ?? CancellationError()))
            }
            let removeNow = state.withLock { state in
                guard state.outcome == nil else { return true }  // a snapshot matched before the consumer was stored
                state.consumer = consumer
                return false
            }
            if removeNow { reachability.removeConsumer(consumer) }
        } catch {
            end(.failure(error))
        }
    }

    /// Ends the wait once `timeout` has passed on the object's clock; the caller awaits, so Swift's pool runs already.
    private func schedule(_ timeout: Duration) {
        let clock = reachability.clock
        let timer = Task { [weak self] in
            guard (try? await clock.sleep(for: timeout)) != nil else { return }  // cancelled: the wait ended
            self?.end(.failure(ReachabilityError.timedOut(timeout)))
        }
        let isOver = state.withLock { state in
            guard state.outcome == nil else { return true }
            state.timer = timer
            return false
        }
        if isOver { timer.cancel() }
    }

    private func end(_ outcome: Result<ReachabilitySnapshot, any Error>) {
        let ended = state.withLock {
            state -> (CheckedContinuation<ReachabilitySnapshot, any Error>?, Consumer?, Task<Void, Never>?)? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer {
                state.continuation = nil
                state.consumer = nil
                state.timer = nil
            }
            return (state.continuation, state.consumer, state.timer)
        }
        guard let (continuation, consumer, timer) = ended else { return }
        timer?.cancel()
        if let consumer { reachability.removeConsumer(consumer) }
        continuation?.resume(with: outcome)
    }
}
