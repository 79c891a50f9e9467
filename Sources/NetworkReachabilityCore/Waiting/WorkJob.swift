import NetworkReachabilityPOSIX
/// How a job of a ``ReachabilityWorkQueue`` ended.
public enum WorkOutcome: Sendable, CustomStringConvertible {
    /// An attempt returned; `attempts` counts every attempt started, interrupted ones included.
    case succeeded(attempts: Int)
    /// The policy's attempts all threw while the target was reachable; the last attempt's error.
    case failed(any Error, attempts: Int)
    /// The queue was closed or released before the job could succeed or fail; an attempt in flight then was
    /// cancelled and did not return.
    case cancelled(attempts: Int)

    /// How many attempts were started.
    public var attempts: Int {
        switch self {
        case .succeeded(let attempts), .failed(_, let attempts), .cancelled(let attempts): attempts
        }
    }

    /// Whether the job succeeded.
    public var isSuccess: Bool { if case .succeeded = self { true } else { false } }

    /// One line: `succeeded after 2 attempts`, `failed after 5 attempts: …`, `cancelled after 0 attempts`.
    public var description: String {
        switch self {
        case .succeeded(let attempts): "succeeded after \(attempts) attempt\(attempts == 1 ? "" : "s")"
        case .failed(let error, let attempts): "failed after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(error)"
        case .cancelled(let attempts): "cancelled after \(attempts) attempt\(attempts == 1 ? "" : "s")"
        }
    }
}

/// A job submitted to a ``ReachabilityWorkQueue``: await its ``outcome``.
public final class WorkJob: Sendable, Identifiable {
    private struct State {
        var outcome: WorkOutcome?
        var waiters: [CheckedContinuation<WorkOutcome, Never>] = []
    }

    /// The job's number in its queue, in submission order from 1.
    public let id: UInt64
    // Guarded by its lock; waiters are resumed outside it.
    private let state = Locked(State())

    init(id: UInt64) {
        self.id = id
    }

    /// How the job ended; suspends until it has. Waiting does not keep the job or the queue going: a job
    /// whose queue is released ends `cancelled`.
    public var outcome: WorkOutcome {
        get async {
            await withCheckedContinuation { continuation in
                let known = state.withLock { state -> WorkOutcome? in
                    if let outcome = state.outcome { return outcome }
                    state.waiters.append(continuation)
                    return nil
                }
                if let known { continuation.resume(returning: known) }
            }
        }
    }

    /// How the job ended, or `nil` while it is waiting or running.
    public var currentOutcome: WorkOutcome? { state.withLock { $0.outcome } }

    /// Records the outcome once and wakes whoever awaits it.
    func finish(_ outcome: WorkOutcome) {
        let waiters = state.withLock { state -> [CheckedContinuation<WorkOutcome, Never>] in
            guard state.outcome == nil else { return [] }
            state.outcome = outcome
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }
}
