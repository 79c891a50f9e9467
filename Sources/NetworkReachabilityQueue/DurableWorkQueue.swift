import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
public import CoreMetrics
public import Logging
import NetworkReachabilityCore
@_exported import NetworkReachabilityKit
import NetworkReachabilityPOSIX
public import NetworkReachabilityValidationCore

/// Jobs that survive a crash and a reboot and run when the network allows: "send this when the link is back, and
/// not over a roaming or metered one if it can wait", kept in an SQLite file.
///
/// - **Kept:** ``submit(_:payload:conditions:retryPolicy:key:replacesQueued:expiresAfter:delay:priority:after:timeout:)`` returns once the job is
///   committed to the file; a crash, a kill or a power cut after that loses nothing.
/// - **At least once, never twice at the same time:** a job running when the process dies runs again at the next
///   ``start()``; a job whose handler returned is kept as done (``jobs(includingDone:)``, a while) and never runs again. One worker per file, by a lock.
/// - **In order:** first submitted, first run, among the jobs whose conditions hold; `maximumRunning` at a time.
/// - **Conditions, live:** a job runs while its ``JobConditions`` hold on the target's latest state; a job running
///   when they stop holding is cancelled and runs again when they hold, with no attempt spent.
/// - **Retries:** a handler that throws is retried after its `RetryPolicy`'s delay, stored in the file, so backoff
///   survives a restart; after its last attempt the job is kept as failed.
///
/// ```swift
/// let queue = try DurableWorkQueue(path: "/var/lib/myapp/outbox.sqlite")
/// queue.register("upload") { job in try await upload(job.payload(as: Reading.self)) }
/// try queue.start()
/// try queue.submit("upload", payload: reading, conditions: JobConditions(unmetered: true))
/// ```
public final class DurableWorkQueue: Sendable {
    /// Runs one job; returning ends it, throwing asks for a retry. It should check for cancellation.
    public typealias Handler = @Sendable (DurableJob) async throws -> Void

    private struct Running {
        let task: Task<Void, any Error>
        let attempt: Int
        let conditions: JobConditions
        let output: JobOutput
        /// Cancelled because its conditions stopped holding, or the queue stopped: it stays queued.
        var interrupted = false
        /// Cut when its attempt reached the job's timeout (milliseconds): a failed attempt.
        var timedOut: Int64?
        /// Cuts it at its timeout.
        var timer: Task<Void, Never>?
    }

    private struct State {
        var handlers: [String: Handler] = [:]
        /// One object per target the jobs name, with its latest snapshot.
        var watches: [Watched: (reachability: NetworkReachability, latest: ReachabilitySnapshot?)] = [:]
        var running: [Int64: Running] = [:]
        var loop: Task<Void, Never>?
        /// The lock beside the file that makes this the file's one worker, and tells it of other processes' jobs.
        var signal: WorkerSignal?
        /// Sleeps until the first retry is due, then wakes the loop; one at a time, replaced when the loop looks again.
        var retryTimer: Task<Void, Never>?
        /// Follows the validator's outcomes, while the queue runs.
        var validation: Task<Void, Never>?
        var isStopped = false
        /// Ends of runs not yet committed (the disk was full, say), committed again at each look: a job whose run
        /// ended is never run again for want of a write.
        var unrecorded: [Int64: (outcome: Outcome, outputLoss: String?)] = [:]
        /// After a look failed for want of storage: the wait before the next, and the timer that wakes it.
        var storageRetryDelay: Duration?
        var storageTimer: Task<Void, Never>?
        /// Why the queue stopped by itself, once it did; and who waits to hear it.
        var failure: QueueError?
        var failureWaiters: [CheckedContinuation<QueueError?, Never>] = []
        /// Told how each run ended, once that is recorded (or kept to be).
        var runEnded: RunEnd?

        /// The waiters of ``DurableWorkQueue/failure()``, taken to be resumed outside the lock.
        mutating func takeFailureWaiters() -> [CheckedContinuation<QueueError?, Never>] {
            defer { failureWaiters = [] }
            return failureWaiters
        }
    }

    /// How a run ended, as the file records it.
    private enum Outcome {
        case succeeded
        case failed(JobFailure)
        case interrupted
    }

    /// The first wait before a look that failed for want of storage is tried again; each later one is twice the one
    /// before, up to ``longestStorageRetryDelay``.
    static let firstStorageRetryDelay = Duration.seconds(1)
    static let longestStorageRetryDelay = Duration.seconds(10)

    private let store: JobStore
    private let makeReachability: @Sendable (ReachabilityTarget) throws(ReachabilityError) -> NetworkReachability
    private let validator: ConnectivityValidator?
    private let maximumRunning: Int
    private let logger: Logger
    private let metrics: QueueMetrics
    private let state = Locked(State())
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// Opens the queue in the file at `path`, creating it when missing; nothing runs before ``start()``.
    ///
    /// - Parameters:
    ///   - path: the SQLite file; several processes may add to it, one runs it.
    ///   - limits: the most jobs and payload bytes it holds.
    ///   - maximumRunning: how many jobs run at once (at least 1).
    ///   - validator: what tells whether the internet really answers, for jobs with the `validated` condition; without
    ///     one, such jobs are refused.
    ///   - logger: where recoveries, failures and retries are logged; nothing is logged unless you pass a logger.
    ///   - metricsFactory: where jobs by state (`network_reachability_queue_jobs{state}`), ended runs by outcome
    ///     (`network_reachability_queue_attempts_total{outcome}`) and the time from a job's due moment to its start
    ///     (`network_reachability_queue_wait_seconds`) are recorded: swift-metrics' bootstrapped backend by default.
    ///   - reachability: makes the object that watches a job's target: the system's by default, a simulated
    ///     network's in tests (`NetworkReachability(target:network:)`).
    /// - Throws: ``QueueError/notADatabase(path:)`` for a file that is not this queue's (it is left as it is),
    ///   ``QueueError/cannotOpen(path:reason:)`` when it cannot be opened or created.
    public init(
        path: String, limits: QueueLimits = QueueLimits(), maximumRunning: Int = 1,
        validator: ConnectivityValidator? = nil, logger: Logger = NetworkReachability.silentLogger,
        metricsFactory: any MetricsFactory = MetricsSystem.factory,
        reachability: @escaping @Sendable (ReachabilityTarget) throws(ReachabilityError) -> NetworkReachability = {
            target throws(ReachabilityError) in try NetworkReachability(target: target)
        }
    ) throws(QueueError) {
        store = try JobStore(path: path, limits: limits)
        makeReachability = reachability
        self.validator = validator
        self.maximumRunning = max(1, maximumRunning)
        self.logger = logger
        metrics = QueueMetrics(factory: metricsFactory)
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: - Jobs

    /// Runs the jobs of `kind` with `handler`; register every kind before ``start()``.
    public func register(_ kind: String, handler: @escaping Handler) {
        state.withLock { $0.handlers[kind] = handler }
        wake.yield()
    }

    /// Adds a job, committed to the file before this returns.
    ///
    /// - Parameters:
    ///   - kind: the handler that runs it, registered with ``register(_:handler:)``.
    ///   - payload: what the handler gets, as JSON.
    ///   - conditions: when it may run; by default, while the internet is reachable.
    ///   - retryPolicy: how often and how patiently a failing run is retried.
    ///   - key: with a key, a queued job submitted under it is replaced (`replacesQueued`), or this one is dropped and
    ///     the queued one's id returned.
    ///   - replacesQueued: whether a job queued under `key` gives way to this one.
    ///   - expiresAfter: from now, after which the job is failed rather than run.
    ///   - delay: from now, before which it does not run.
    ///   - priority: among the jobs that may run, a higher one runs first; equal ones in order of submission.
    ///   - after: a job that must succeed first; if it fails or is removed, this one fails.
    ///   - timeout: how long one attempt may run: then its handler is cancelled and the attempt fails.
    /// - Returns: the job's id.
    /// - Throws: ``QueueError/full(reason:)`` at the queue's bounds (nothing is dropped), ``QueueError/invalidJob(reason:)``
    ///   for a payload that does not encode, a target that is none, an `after` job that failed or an expiry no later than
    ///   the delay, ``QueueError/noSuchJob(_:)`` for an `after` job not in the file.
    @discardableResult
    public func submit<Payload: Encodable>(
        _ kind: String, payload: Payload, conditions: JobConditions = JobConditions(), retryPolicy: RetryPolicy = .standard,
        key: String? = nil, replacesQueued: Bool = true, expiresAfter: Duration? = nil, delay: Duration? = nil,
        priority: Int = 0, after: Int64? = nil, timeout: Duration? = nil
    ) throws(QueueError) -> Int64 {
        if conditions.validated && validator == nil {
            throw .invalidJob(reason: "the validated condition needs a queue made with a validator")
        }
        var submission: JobStore.Submission
        do {
            submission = JobStore.Submission(kind: kind, payload: Array(try JSONEncoder().encode(payload)))
        } catch {
            throw .invalidJob(reason: "the payload does not encode: \(error)")
        }
        submission.conditions = conditions
        submission.retryPolicy = retryPolicy
        submission.key = key
        submission.replacesQueued = replacesQueued
        let now = JobStore.now()
        submission.expiresAt = expiresAfter.map { $0.after(now) }
        submission.notBefore = delay.map { $0.after(now) }
        submission.priority = priority
        submission.after = after
        submission.timeout = timeout.map { max(1, $0.saturatingMilliseconds) }
        let id = try store.submit(submission, now: now, wakesWorker: state.withLock { $0.signal == nil })
        wake.yield()
        return id
    }

    /// Makes failed jobs run again, in their place and under their ids, their attempts counted from 0: `ids`, or
    /// every failed job. Returns how many.
    ///
    /// - Throws: ``QueueError/noSuchJob(_:)`` for an id not in the file, ``QueueError/invalidJob(reason:)`` for one
    ///   that is neither failed nor retrying, or follows a failed job not retried with it.
    @discardableResult
    public func retry(_ ids: [Int64]? = nil) throws(QueueError) -> Int {
        let count = try store.retry(ids, now: JobStore.now())
        wake.yield()
        return count
    }

    /// Removes the outcomes kept of done jobs and, with `failed`, the failed jobs; how many jobs it removed.
    @discardableResult
    public func clean(failed: Bool = false) throws(QueueError) -> Int { try store.clean(failed: failed) }

    /// Pauses the queue: no job starts until ``resume()`` (running ones run on). Kept in the file, so the next
    /// start is paused too.
    public func pause() throws(QueueError) { try store.setPaused(true) }

    /// Resumes a paused queue.
    public func resume() throws(QueueError) {
        try store.setPaused(false)
        wake.yield()
    }

    /// What job `id`'s last attempt wrote (``DurableJob/write(_:)-(String)``), its last 64 KiB, and how many bytes before them
    /// were dropped; `nil` when the file holds no such job.
    public func output(of id: Int64) throws(QueueError) -> (bytes: [UInt8], dropped: Int64)? { try store.output(of: id) }

    /// Every job not done, in order of submission; with `includingDone`, the done ones kept too (`reach queue list`).
    public func jobs(includingDone: Bool = false) throws(QueueError) -> [StoredJob] { try store.jobs(includingDone: includingDone) }

    /// Job `id`, with its state and outcome; `nil` when the file holds no such job.
    public func job(_ id: Int64) throws(QueueError) -> StoredJob? { try store.job(id) }

    /// How many jobs are in each state, every state with its number, 0 included (kept by the file: nothing is counted).
    public func counts() throws(QueueError) -> [StoredJob.State: Int] {
        let kept = try store.counts()
        return Dictionary(uniqueKeysWithValues: StoredJob.State.allCases.map { ($0, kept[$0] ?? 0) })
    }

    /// Removes job `id` whatever its state, and cancels its run if it is running; whether there was one. The jobs
    /// that were to follow it (`after:`) fail.
    @discardableResult
    public func remove(_ id: Int64) throws(QueueError) -> Bool { try store.remove(id) }

    // MARK: - Running

    /// The descriptor of the worker's lock while the queue runs: a process started by a handler that inherits it
    /// keeps the file's jobs from a second worker until it ends, even when this process was killed. `reach queue run`
    /// hands it to its commands.
    package var workerLockDescriptor: Int32? { state.withLock { $0.signal?.file.descriptor } }

    /// What is told how a run ended: the job's id, the attempt, and `done`, `stopped, ERROR` (it stays queued) or
    /// why it failed (`timed out after 2 s`, `exit status 3`).
    package typealias RunEnd = @Sendable (_ id: Int64, _ attempt: Int, _ outcome: String) -> Void

    /// Tells `body` how each run ended, after its end is committed (or kept to be, when the disk is full): whoever
    /// reads the file after it hears an end reads that end. `reach queue run` prints it.
    package func whenRunEnds(_ body: @escaping RunEnd) { state.withLock { $0.runEnded = body } }

    /// Starts running jobs: a run the last process did not finish is queued again first.
    ///
    /// One worker runs a file's jobs: this takes an exclusive lock on `PATH.worker` first, which the kernel
    /// releases when the process ends, however it ends. After ``stop()`` it does nothing: a stopped queue stays
    /// stopped, and a new queue object on the file runs its jobs.
    ///
    /// - Throws: ``QueueError/anotherWorker(path:)`` while another queue object or process runs the file's jobs;
    ///   ``QueueError`` when the file cannot be read or written.
    public func start() throws(QueueError) {
        guard !state.withLock(\.isStopped) else { return }
        if state.withLock({ $0.signal == nil }) {
            let wake = self.wake
            try store.file.checkRunnable()
            let signal = try WorkerSignal(file: store.file) { wake.yield() }
            state.withLock { $0.signal = signal }
        }
        let recovered = try store.recoverInterruptedRuns()
        store.keepReserve()
        if recovered > 0 { logger.info("\(recovered) runs the last process did not finish are queued again") }
        state.withLock { state in
            guard state.loop == nil, !state.isStopped else { return }
            state.loop = Task { [self] in await run() }
            if let updates = validator?.updates {
                state.validation = Task { [weak self] in
                    for await outcome in updates { self?.validationChanged(to: outcome) }
                }
            }
        }
        wake.yield()
    }

    /// Stops: running jobs are cancelled and stay queued for the next start; nothing new starts.
    public func stop() async {
        let (loop, running) = state.withLock { state -> (Task<Void, Never>?, [Task<Void, any Error>]) in
            state.isStopped = true
            state.validation?.cancel()
            state.retryTimer?.cancel()
            state.storageTimer?.cancel()
            for id in state.running.keys {
                state.running[id]?.interrupted = true
                state.running[id]?.timer?.cancel()
            }
            return (state.loop, state.running.values.map(\.task))
        }
        for task in running { task.cancel() }
        wake.finish()
        await loop?.value
        for task in running { _ = await task.result }
        let watches = state.withLock { state in
            defer { state.watches = [:] }
            return state.watches.values.map(\.reachability)
        }
        for reachability in watches { reachability.stopListening() }
        state.withLock { $0.signal.take() }?.release()
        for waiter in state.withLock({ $0.takeFailureWaiters() }) { waiter.resume(returning: nil) }
    }

    /// Waits until the queue stops by itself because its file can no longer be used, and returns why: it was damaged
    /// (``QueueError/damaged(path:reason:)``), replaced by one that is not a queue, or made unsafe. Returns `nil`
    /// once ``stop()`` was called. A full disk or a failed write does not stop the queue: it tries again, 1 s later
    /// at first, then up to every 10 s, and logs each failure as an error.
    public func failure() async -> QueueError? {
        await withCheckedContinuation { continuation in
            let known = state.withLock { state -> QueueError?? in
                if state.failure != nil || state.isStopped { return .some(state.failure) }
                state.failureWaiters.append(continuation)
                return .none
            }
            if let known { continuation.resume(returning: known) }
        }
    }

    private func run() async {
        for await _ in wakes {
            guard !state.withLock(\.isStopped) else { break }
            do {
                try recordUnrecordedEnds()
                try cutRemovedRuns()
                try startDueJobs()
                try scheduleNextDue()
                try metrics.record(store.counts())
                store.keepReserve()
                state.withLock { $0.storageRetryDelay = nil }
            } catch .damaged(let path, let reason) {
                failed(.damaged(path: path, reason: reason))
            } catch .notADatabase(let path) {
                failed(.notADatabase(path: path))
            } catch .unsafe(let path, let reason) {
                failed(.unsafe(path: path, reason: reason))
            } catch {
                retryAfterStorageFailure(error)
            }
        }
    }

    /// The file can no longer be used: nothing more starts, and ``failure()`` says why (so the log has it only at
    /// debug level: a program says it once).
    private func failed(_ error: QueueError) {
        logger.debug("\(error)")
        let waiters = state.withLock { state in
            state.failure = state.failure ?? error
            state.isStopped = true
            return state.takeFailureWaiters()
        }
        for waiter in waiters { waiter.resume(returning: error) }
    }

    /// A look failed for want of storage (a full disk, a failed write): it is tried again after a wait that doubles
    /// from 1 s up to 10 s, and the failure is logged as an error each time.
    private func retryAfterStorageFailure(_ error: QueueError) {
        let wake = self.wake
        let delay = state.withLock { state -> Duration in
            let delay = state.storageRetryDelay.map { min($0 * 2, Self.longestStorageRetryDelay) } ?? Self.firstStorageRetryDelay
            state.storageRetryDelay = delay
            state.storageTimer?.cancel()
            state.storageTimer = Task {
                guard (try? await Task.sleep(for: delay)) != nil else { return }
                wake.yield()
            }
            return delay
        }
        logger.error("\(error); trying again in \(delay.components.seconds) s")
    }

    /// Commits the ends of runs an earlier commit failed to record.
    private func recordUnrecordedEnds() throws(QueueError) {
        for (id, end) in state.withLock({ $0.unrecorded }) {
            do {
                try record(end.outcome, outputLoss: end.outputLoss, of: id)
            } catch .noSuchJob {
            }
            state.withLock { _ = $0.unrecorded.removeValue(forKey: id) }
        }
    }

    /// Starts the first jobs whose conditions hold, up to `maximumRunning`.
    private func startDueJobs() throws(QueueError) {
        while state.withLock({ $0.running.count < maximumRunning && !$0.isStopped }) {
            let now = JobStore.now()
            guard let job = try store.claimNext(now: now, where: { holds($0) }) else { return }
            guard let handler = state.withLock({ $0.handlers[job.kind] }) else {
                _ = try store.fail(job.id, now: now, reason: "no handler is registered for '\(job.kind)'", permanent: true)
                logger.warning("job \(job.id): no handler is registered for '\(job.kind)'")
                continue
            }
            metrics.recordWait(milliseconds: now - job.nextAttemptAt)
            let output = JobOutput(job: job.id, store: store, logger: logger)
            let run = DurableJob(id: job.id, kind: job.kind, attempt: job.attempts, payload: job.payload, output: output)
            state.withLock { state in
                let task = Task<Void, any Error> { [self] in
                    do {
                        try await handler(run)
                        finished(job.id, .success(()))
                    } catch {
                        finished(job.id, .failure(error))
                        throw error
                    }
                }
                state.running[job.id] = Running(
                    task: task, attempt: job.attempts, conditions: job.conditions, output: output,
                    timer: job.timeout.map { timeout in Task { [weak self] in await self?.cut(job.id, after: timeout) } })
            }
        }
    }

    /// Wakes the loop when the first job waiting out a retry delay is due.
    private func scheduleNextDue() throws(QueueError) {
        let due = try store.nextDueTime(after: JobStore.now())
        let wake = self.wake
        let previous = state.withLock { state in
            defer {
                state.retryTimer = due.map { due in
                    Task {
                        guard (try? await Task.sleep(for: .milliseconds(max(0, due - JobStore.now())))) != nil else { return }
                        wake.yield()
                    }
                }
            }
            return state.retryTimer
        }
        previous?.cancel()
    }

    /// Cuts job `id`'s run when it has run `timeout` milliseconds: its handler is cancelled, and the attempt fails.
    private func cut(_ id: Int64, after timeout: Int64) async {
        guard (try? await Task.sleep(for: .milliseconds(timeout))) != nil else { return }
        let task = state.withLock { state -> Task<Void, any Error>? in
            guard let running = state.running[id], !running.interrupted, running.timedOut == nil else { return nil }
            state.running[id]?.timedOut = timeout
            return running.task
        }
        task?.cancel()
    }

    private func finished(_ id: Int64, _ result: Result<Void, any Error>) {
        let (running, told) = state.withLock { ($0.running.removeValue(forKey: id), $0.runEnded) }
        running?.timer?.cancel()
        let outputLoss = running?.output.finish()  // before the end: whoever sees it end sees all it wrote
        let outcome: Outcome
        let said: String
        switch result {
        case .success:
            metrics.recordRun(.succeeded)
            outcome = .succeeded
            said = "done"
        case .failure(let error) where running?.interrupted == true:
            metrics.recordRun(.interrupted)
            outcome = .interrupted
            said = "stopped, \(error)"
        case .failure(let error):
            metrics.recordRun(.failed)
            let failure: JobFailure
            if let timeout = running?.timedOut {
                let figure = timeout % 1000 == 0 ? "\(timeout / 1000) s" : "\(timeout) ms"
                failure = JobFailure("timed out after \(figure)", exitStatus: 124)
            } else {
                failure = error as? JobFailure ?? JobFailure("\(error)")
            }
            outcome = .failed(failure)
            said = failure.reason
        }
        do {
            try record(outcome, outputLoss: outputLoss, of: id)
        } catch .noSuchJob {
            logger.debug("job \(id) was removed while it ran")
        } catch {
            // Kept, and committed at the next look: the job is not run again meanwhile (it is not in the running
            // set, and claims take only waiting and retrying jobs).
            state.withLock { $0.unrecorded[id] = (outcome, outputLoss) }
            logger.error("job \(id): its end is not recorded yet: \(error)")
        }
        if let running { told?(id, running.attempt, said) }
        wake.yield()
    }

    /// Commits how a run ended.
    private func record(_ outcome: Outcome, outputLoss: String?, of id: Int64) throws(QueueError) {
        switch outcome {
        case .succeeded:
            try store.complete(id, outputLoss: outputLoss)
        case .interrupted:
            try store.giveBack(id, outputLoss: outputLoss)
            logger.debug("job \(id): interrupted; queued again")
        case .failed(let failure):
            let now = try store.fail(
                id, now: JobStore.now(), reason: failure.reason, exitStatus: failure.exitStatus, permanent: failure.isPermanent,
                outputLoss: outputLoss)
            logger.debug("job \(id) failed: \(failure.reason); now \(now.rawValue)")
        }
    }

    /// Cancels the runs of jobs removed from the file while they ran (`reach queue remove`, or a submission that
    /// replaced it under its key): nobody wants their result any more.
    private func cutRemovedRuns() throws(QueueError) {
        guard state.withLock({ !$0.running.isEmpty }) else { return }
        // Read before the running set: a run that ended in between is no longer in it, and is not cut.
        let stored = try store.runningIDs()
        let cut = state.withLock { state in
            var cut: [Task<Void, any Error>] = []
            for (id, running) in state.running where !running.interrupted && !stored.contains(id) {
                state.running[id]?.interrupted = true
                cut.append(running.task)
            }
            return cut
        }
        for task in cut { task.cancel() }
    }

    /// How many jobs not yet done need validation: without a validator they never run.
    package func jobsNeedingValidation() throws(QueueError) -> Int { try store.jobsNeedingValidation() }

    // MARK: - Conditions

    /// Whether `conditions` hold now, starting to watch their target the first time it is named.
    private func holds(_ conditions: JobConditions) -> Bool {
        guard let watched = Watched(conditions) else { return false }
        return conditions.hold(on: latest(of: watched), isValidated: validator?.outcome == .validated)
    }

    /// A target as jobs' conditions watch it: with its link quality measured, for jobs that need a minimum quality.
    private struct Watched: Hashable {
        let target: ReachabilityTarget
        let measuresQuality: Bool

        init?(_ conditions: JobConditions) {
            guard let target = try? conditions.reachabilityTarget() else { return nil }
            self.target = target
            measuresQuality = conditions.minimumQuality != nil
        }
    }

    private func latest(of watched: Watched) -> ReachabilitySnapshot? {
        if let watch = state.withLock({ $0.watches[watched] }) {
            return watch.latest ?? (try? watch.reachability.currentSnapshot())
        }
        guard let reachability = try? makeReachability(watched.target) else { return nil }
        reachability.measuresQuality = watched.measuresQuality
        let first = try? reachability.currentSnapshot()
        state.withLock { $0.watches[watched] = (reachability, first) }
        _ = try? reachability.addConsumer(rule: .snapshot) { [weak self] snapshot in
            self?.changed(watched, to: snapshot)
        }
        return first
    }

    /// A target changed: running jobs whose conditions stopped holding are cancelled, and the loop looks again.
    private func changed(_ watched: Watched, to snapshot: ReachabilitySnapshot) {
        let isValidated = validator?.outcome == .validated  // read before this queue's lock: never both held
        let cut = state.withLock { state -> [Task<Void, any Error>] in
            state.watches[watched]?.latest = snapshot
            return Self.cut(&state) { conditions in
                Watched(conditions) == watched && !conditions.hold(on: snapshot, isValidated: isValidated)
            }
        }
        for task in cut { task.cancel() }
        wake.yield()
    }

    /// The validator's outcome changed: running jobs that need validation are cancelled unless it is `validated`.
    private func validationChanged(to outcome: ValidationOutcome) {
        let cut = state.withLock { state in
            Self.cut(&state) { conditions in conditions.validated && outcome != .validated }
        }
        for task in cut { task.cancel() }
        wake.yield()
    }

    /// Marks the running jobs whose conditions `stopHolding` says stopped holding as interrupted; their tasks.
    private static func cut(
        _ state: inout State, where stopHolding: (JobConditions) -> Bool
    ) -> [Task<Void, any Error>] {
        var cut: [Task<Void, any Error>] = []
        for (id, running) in state.running where !running.interrupted && stopHolding(running.conditions) {
            state.running[id]?.interrupted = true
            cut.append(running.task)
        }
        return cut
    }
}

