public import Logging

/// Runs async jobs one at a time, in the order they were submitted, while a target is reachable: "send
/// this when the network is back", done once and right.
///
/// - A job waits while the target is not reachable, and starts as soon as it is.
/// - When the target stops being reachable during an attempt, the attempt's task is cancelled and the job
///   runs again once the target is back; this costs no attempt of the ``RetryPolicy``.
/// - An attempt that throws while the target stays reachable is retried after the policy's backoff, until
///   the policy's attempts are used up; then the job fails and the next one starts.
/// - Each job's ``WorkJob/outcome`` says how it ended.
///
/// ```swift
/// let queue = try ReachabilityWorkQueue(reachability: NetworkReachability())
/// let job = queue.submit { try await upload(report) }
/// print(await job.outcome)
/// ```
///
/// The queue lives in memory only: jobs that have not ended when the process exits are lost, so persist
/// what must survive a restart yourself. Closing or releasing the queue cancels what has not ended. A job
/// should check for cancellation (any `async` networking API does), or an interrupted attempt runs to its end.
public final class ReachabilityWorkQueue: Sendable {
    /// One job: an attempt is one call. Throwing asks for a retry; returning ends the job.
    public typealias Work = @Sendable () async throws -> Void

    private let runner: WorkQueueRunner

    // MARK: - Initialization

    /// Makes a queue that runs jobs while `reachability`'s target is reachable.
    ///
    /// - Parameters:
    ///   - reachability: what the jobs need: the internet (`NetworkReachability()`), or another target.
    ///   - retryPolicy: how a failing job is retried.
    ///   - logger: where each failed, interrupted and retried attempt is logged (debug; a job that gives up, warning);
    ///     nothing is logged unless you pass a logger.
    /// - Throws: the kernel subscription's error when it cannot be opened.
    public init(
        reachability: NetworkReachability, retryPolicy: RetryPolicy = .standard,
        logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        runner = WorkQueueRunner(reachability: reachability, retryPolicy: retryPolicy, logger: logger)
        try runner.start()
    }

    /// Releasing the queue closes it: see ``close()``.
    deinit {
        runner.stop(.closed)
    }

    // MARK: - Jobs

    /// Adds a job at the end of the queue.
    ///
    /// - Returns: the job, whose ``WorkJob/outcome`` tells how it ended; `cancelled` at once when the queue
    ///   is closed.
    @discardableResult
    public func submit(_ work: @escaping Work) -> WorkJob {
        runner.submit(work)
    }

    /// Jobs submitted that have not ended yet, the one running included.
    public var unfinishedJobCount: Int { runner.unfinishedJobCount }

    /// Stops the queue: jobs waiting end `cancelled`, an attempt in flight is cancelled, and the queue stops
    /// listening. Later submissions end `cancelled` at once.
    public func close() {
        runner.stop(.closed)
    }
}
