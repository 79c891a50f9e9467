import Dispatch

/// Runs jobs one at a time, in the order given, on a thread of its own that exists only while jobs wait.
///
/// The library's own background work (`getaddrinfo`, DNS64 discovery), and `reach serve`'s password checks, run here
/// rather than on a Dispatch queue: on Linux, the first job on any Dispatch queue starts the worker pool's monitor, a one-second timer
/// that then wakes the process for as long as it lives, however quiet the network.
package final class SerialLane: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        /// Whether a thread is draining `jobs`; it clears this, under the lock, when it finds none left.
        var isRunning = false
    }

    private let name: String
    // Guarded by its lock; never held while a job runs.
    private let state = Locked(State())

    /// A lane whose thread is called `name` (a name over 15 bytes is not set).
    package init(name: String) {
        self.name = name
    }

    /// Queues `job`, starting the lane's thread when none runs. Never blocks on the jobs.
    package func run(_ job: @escaping @Sendable () -> Void) {
        let starts = state.withLock { state in
            state.jobs.append(job)
            defer { state.isRunning = true }
            return !state.isRunning
        }
        guard starts else { return }
        do {
            try DedicatedThread(name: name) { [self] in drain() }.detach()
        } catch {
            // No thread to be had: Dispatch drains instead, at the cost of its monitor's timer.
            DispatchQueue.global().async { [self] in drain() }
        }
    }

    /// Whether a thread is draining the lane now: false once every job has run.
    package var isRunning: Bool { state.withLock { $0.isRunning } }

    private func drain() {
        while true {
            let jobs = state.withLock { state in
                defer { state.jobs.removeAll() }
                if state.jobs.isEmpty { state.isRunning = false }
                return state.jobs
            }
            guard !jobs.isEmpty else { return }
            for job in jobs { job() }
        }
    }
}
