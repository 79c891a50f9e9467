import NetworkReachabilityPOSIX
import Logging

/// The state and the running task behind a ``ReachabilityWorkQueue``.
///
/// Kept apart from the public object so that its task and its listener do not keep the queue alive:
/// releasing the queue stops the runner.
final class WorkQueueRunner: Sendable {
    /// Why the queue stopped; decides how unfinished jobs end.
    enum Stop {
        case closed
        case listeningEnded(any Error)

        func outcome(attempts: Int) -> WorkOutcome {
            switch self {
            case .closed: .cancelled(attempts: attempts)
            case .listeningEnded(let error): .failed(error, attempts: attempts)
            }
        }
    }

    private struct Entry {
        let job: WorkJob
        let work: ReachabilityWorkQueue.Work
    }

    private enum AttemptStart {
        case started(Task<Void, any Error>)
        case notReachable
        case stopped(Stop)
    }

    private struct State {
        /// Whether the target is reachable, by the latest snapshot; false until the first.
        var isReachable = false
        var pending: [Entry] = []
        var nextID: UInt64 = 1
        /// Whether a job has been taken from `pending` and has not ended.
        var isJobRunning = false
        /// The task that runs jobs; there while jobs are pending or running.
        var runner: Task<Void, Never>?
        var attempt: Task<Void, any Error>?
        /// Whether the attempt in flight was cancelled because the target stopped being reachable.
        var attemptInterrupted = false
        /// The runner, suspended until the target is reachable.
        var reachableWaiter: CheckedContinuation<Void, Never>?
        var stop: Stop?
        var observer: Consumer?
    }

    private let reachability: NetworkReachability
    private let retryPolicy: RetryPolicy
    private let logger: Logger
    // Guarded by its lock; tasks are cancelled and continuations resumed only outside it.
    private let state = Locked(State())

    init(reachability: NetworkReachability, retryPolicy: RetryPolicy, logger: Logger) {
        self.reachability = reachability
        self.retryPolicy = retryPolicy
        self.logger = logger
    }

    /// Starts listening to the target.
    func start() throws(ReachabilityError) {
        let observer = try reachability.addConsumer(rule: .status) { [weak self] snapshot in
            self?.update(isReachable: snapshot.status.isReachable)
        } finish: { [weak self, reachability] in
            // Also called when ``stop(_:)`` removes the listener; then the queue has stopped already.
            self?.stop(.listeningEnded(reachability.listeningFailure ?? CancellationError()))
        }
        state.withLock { $0.observer = observer }
    }

    // MARK: - Jobs

    func submit(_ work: @escaping ReachabilityWorkQueue.Work) -> WorkJob {
        let (job, stopped) = state.withLock { state -> (WorkJob, Stop?) in
            let job = WorkJob(id: state.nextID)
            state.nextID += 1
            if let stop = state.stop { return (job, stop) }
            state.pending.append(Entry(job: job, work: work))
            if state.runner == nil {
                state.runner = Task { [self] in await run() }
            }
            return (job, nil)
        }
        if let stopped { job.finish(stopped.outcome(attempts: 0)) }
        return job
    }

    var unfinishedJobCount: Int { state.withLock { $0.pending.count + ($0.isJobRunning ? 1 : 0) } }

    private func run() async {
        while let entry = nextEntry() {
            let outcome = await perform(entry)
            state.withLock { $0.isJobRunning = false }
            entry.job.finish(outcome)
        }
    }

    /// The next job, or `nil` (and the runner ends) when there is none or the queue stopped.
    private func nextEntry() -> Entry? {
        state.withLock { state in
            guard state.stop == nil, !state.pending.isEmpty else {
                state.runner = nil
                return nil
            }
            state.isJobRunning = true
            return state.pending.removeFirst()
        }
    }

    /// Runs one job's attempts until one returns, the policy gives up, or the queue stops.
    private func perform(_ entry: Entry) async -> WorkOutcome {
        var attempts = 0
        var failures = 0
        while true {
            await untilReachable()
            let attempt: Task<Void, any Error>
            switch beginAttempt(entry) {
            case .stopped(let stop): return stop.outcome(attempts: attempts)
            case .notReachable: continue
            case .started(let started): attempt = started
            }
            attempts += 1
            let result = await attempt.result
            let (interrupted, stop) = endAttempt()
            guard case .failure(let error) = result else {
                logger.debug("job \(entry.job.id) succeeded after \(attempts) attempts")
                return .succeeded(attempts: attempts)
            }
            if let stop { return stop.outcome(attempts: attempts) }
            if interrupted {
                logger.debug("job \(entry.job.id): attempt \(attempts) interrupted, \(reachability.target) not reachable")
                continue
            }
            failures += 1
            guard failures < retryPolicy.maximumAttempts else {
                logger.warning("job \(entry.job.id) failed after \(attempts) attempts: \(error)")
                return .failed(error, attempts: attempts)
            }
            let delay = retryPolicy.delay(afterFailures: failures)
            logger.debug("job \(entry.job.id): attempt \(attempts) failed (\(error)); again in \(delay)")
            // A stop cancels the runner, which ends the sleep early.
            try? await reachability.clock.sleep(for: delay)
        }
    }

    private func untilReachable() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                guard state.stop == nil, !state.isReachable else { return true }
                state.reachableWaiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func beginAttempt(_ entry: Entry) -> AttemptStart {
        state.withLock { state in
            if let stop = state.stop { return .stopped(stop) }
            guard state.isReachable else { return .notReachable }  // lost again since the runner woke
            let attempt = Task { try await entry.work() }
            state.attempt = attempt
            state.attemptInterrupted = false
            return .started(attempt)
        }
    }

    private func endAttempt() -> (interrupted: Bool, stop: Stop?) {
        state.withLock { state in
            state.attempt = nil
            return (state.attemptInterrupted, state.stop)
        }
    }

    // MARK: - Reachability and stopping

    private func update(isReachable: Bool) {
        let (waiter, interrupted) = state.withLock {
            state -> (CheckedContinuation<Void, Never>?, Task<Void, any Error>?) in
            guard state.stop == nil else { return (nil, nil) }
            state.isReachable = isReachable
            if isReachable {
                defer { state.reachableWaiter = nil }
                return (state.reachableWaiter, nil)
            }
            guard let attempt = state.attempt, !state.attemptInterrupted else { return (nil, nil) }
            state.attemptInterrupted = true
            return (nil, attempt)
        }
        waiter?.resume()
        interrupted?.cancel()
    }

    /// Stops once: jobs waiting end by `reason`, the attempt in flight and the runner are cancelled, and
    /// listening ends.
    func stop(_ reason: Stop) {
        let stopped = state.withLock {
            state -> ([Entry], CheckedContinuation<Void, Never>?, Task<Void, any Error>?, Task<Void, Never>?, Consumer?)? in
            guard state.stop == nil else { return nil }
            state.stop = reason
            defer {
                state.pending = []
                state.reachableWaiter = nil
                state.observer = nil
            }
            return (state.pending, state.reachableWaiter, state.attempt, state.runner, state.observer)
        }
        guard let (pending, waiter, attempt, runner, observer) = stopped else { return }
        for entry in pending { entry.job.finish(reason.outcome(attempts: 0)) }
        waiter?.resume()
        attempt?.cancel()
        runner?.cancel()
        if let observer { reachability.removeConsumer(observer) }
    }
}
