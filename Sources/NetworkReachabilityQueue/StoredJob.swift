import NetworkReachabilityCore

/// A job as the queue's file holds it: what ``DurableWorkQueue/jobs(includingDone:)`` and ``DurableWorkQueue/job(_:)``
/// give, its state and outcome included.
public struct StoredJob: Sendable, Equatable {
    /// Where a job is in its life.
    public enum State: String, Sendable, Codable, CaseIterable {
        /// Not run yet, or given back because its conditions stopped holding while it ran.
        case waiting
        /// Claimed by the worker and running; at the worker's next start, a run the process did not finish is
        /// waiting again (at least once).
        case running
        /// Failed at least once; runs again at ``StoredJob/nextAttemptAt``.
        case retrying
        /// Failed its last attempt, failed for good, expired, or followed a job that failed or was removed: kept,
        /// never run again, until retried or removed.
        case failed
        /// Follows a job that has not succeeded yet: waiting once it has.
        case blocked
        /// Succeeded: never runs again; its outcome is kept a while (at least the latest 1,000, for 7 days).
        case done
    }

    /// Increasing in order of submission: the queue's order.
    public let id: Int64
    /// The handler that runs it.
    public let kind: String
    /// The payload as submitted, JSON-encoded (``DurableJob/payload(as:)`` decodes it in a handler).
    public let payload: [UInt8]
    /// What must hold for it to run.
    public let conditions: JobConditions
    /// How a failed attempt is retried.
    public let retryPolicy: RetryPolicy
    /// A job submitted with the same key replaces this one, or is dropped, as its submitter asks.
    public let key: String?
    public let state: State
    /// Runs started, the one running included.
    public let attempts: Int
    /// Milliseconds since 1970 before which it does not run again (the wall clock, so backoff survives a reboot).
    public let nextAttemptAt: Int64
    /// Milliseconds since 1970 after which it is failed instead of run; `nil`: never.
    public let expiresAt: Int64?
    /// Why its last attempt failed.
    public let lastError: String?
    /// Among the jobs that may run, a higher one runs first.
    public package(set) var priority = 0
    /// The job that must succeed before this one runs.
    public package(set) var after: Int64?
    /// How long one attempt may run, in milliseconds.
    public package(set) var timeout: Int64?
    /// Milliseconds since 1970 when it was done or failed for good.
    public package(set) var finishedAt: Int64?
    /// What its last attempt's command exited with: 0 when done, `128 + N` after signal N, 124 after its timeout.
    public package(set) var exitStatus: Int32?
}
