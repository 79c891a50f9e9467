import NetworkReachabilityCore

/// A job as the database holds it.
package struct StoredJob: Sendable, Equatable {
    /// Where a job is in its life; a job that succeeded is deleted, so it has no state.
    package enum State: String, Sendable, Codable {
        /// Not run yet, or given back because its conditions stopped holding while it ran.
        case waiting
        /// Claimed by the worker and running; at the worker's next start, a run the process did not finish is
        /// waiting again (at least once).
        case running
        /// Failed at least once; runs again at ``StoredJob/nextAttemptAt``.
        case retrying
        /// Failed its last attempt, or expired: kept, never run again, until removed.
        case failed
    }

    /// Increasing in order of submission: the queue's order.
    package let id: Int64
    /// The handler that runs it.
    package let kind: String
    package let payload: [UInt8]
    package let conditions: JobConditions
    package let retryPolicy: RetryPolicy
    /// A job submitted with the same key replaces this one, or is dropped, as its submitter asks.
    package let key: String?
    package let state: State
    /// Runs started, the one running included.
    package let attempts: Int
    /// Milliseconds since 1970 before which it does not run again (the wall clock, so backoff survives a reboot).
    package let nextAttemptAt: Int64
    /// Milliseconds since 1970 after which it is failed instead of run; `nil`: never.
    package let expiresAt: Int64?
    /// Why its last attempt failed.
    package let lastError: String?
}
