import Dispatch

/// Runs actions once their deadlines pass, on a thread of its own that exists only while an action is pending.
///
/// The library's own timeouts use this rather than Dispatch, for the reason ``SerialLane`` gives: a process
/// that is told nothing new must not wake. A cancelled action never runs, and when the last pending one is
/// cancelled the thread ends.
package final class DeadlineTimer: Sendable {
    /// Names a scheduled action, for ``cancel(_:)``.
    package typealias Token = UInt64

    private struct Pending {
        /// Milliseconds on `CLOCK_MONOTONIC`.
        let deadline: Int
        let action: @Sendable () -> Void
    }

    private struct State {
        var pending: [Token: Pending] = [:]
        var nextToken: Token = 1
        /// The deadline the thread sleeps until; an earlier one, or none left, wakes it.
        var sleepsUntil: Int?
        /// Bumped whenever the sleeping thread must look again.
        var generation: UInt64 = 0
        /// Whether a thread serves the timer; it clears this, under the lock, when nothing is pending.
        var isRunning = false
    }

    private let name: String
    // Guarded by its lock; never held while an action runs.
    private let state = ConditionLock(State())

    /// A timer whose thread is called `name` (a name over 15 bytes is not set).
    package init(name: String) {
        self.name = name
    }

    /// Runs `action` once `delay` has passed, unless it is cancelled first.
    @discardableResult
    package func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Token {
        let deadline = MonotonicClock.deadline(after: delay)
        let (token, starts) = state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.pending[token] = Pending(deadline: deadline, action: action)
            if let sleepsUntil = state.sleepsUntil, deadline < sleepsUntil { state.generation &+= 1 }
            defer { state.isRunning = true }
            return (token, !state.isRunning)
        }
        if starts {
            do {
                try DedicatedThread(name: name) { [self] in serve() }.detach()
            } catch {
                // No thread to be had: a Dispatch worker serves instead, at the cost of its monitor's timer.
                DispatchQueue.global().async { [self] in serve() }
            }
        }
        return token
    }

    /// Drops the action `token` names if it has not run yet.
    package func cancel(_ token: Token) {
        state.withLock { state in
            guard state.pending.removeValue(forKey: token) != nil, state.pending.isEmpty else { return }
            state.generation &+= 1  // nothing left: the thread ends now rather than at the old deadline
        }
    }

    /// Whether a thread serves the timer now: false once nothing is pending.
    package var isRunning: Bool { state.withLock { $0.isRunning } }

    private func serve() {
        while true {
            let (due, next, generation) = state.withLock { state in
                let now = MonotonicClock.milliseconds()
                let due = state.pending.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }
                for (token, _) in due { state.pending[token] = nil }
                state.sleepsUntil = state.pending.values.map(\.deadline).min()
                if state.sleepsUntil == nil { state.isRunning = false }
                return (due.map(\.value.action), state.sleepsUntil, state.generation)
            }
            for action in due { action() }
            guard let next else { return }
            state.wait(until: { $0.generation != generation }, deadline: next) { _, _ in }
        }
    }
}
