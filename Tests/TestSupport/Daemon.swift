import Foundation

/// The one process of a daemon a fixture runs (a bus, a NetworkManager), which a test kills as a crash would, starts
/// again, or freezes.
public final class Daemon: @unchecked Sendable {
    private let lock = NSLock()
    private var process: Subprocess?  // guarded by `lock`

    public init() {}

    /// Holds `process` as the daemon, started (again).
    public func hold(_ process: Subprocess) { lock.withLock { self.process = process } }

    /// Kills it with SIGKILL and reaps it, as a crash would; nothing is held after.
    public func kill() {
        let process = lock.withLock {
            defer { self.process = nil }
            return self.process
        }
        process?.end()
    }

    /// Stops (SIGSTOP) or continues (SIGCONT) it: stopped, it answers nothing.
    public func freeze(_ frozen: Bool) {
        lock.withLock { process }?.send(frozen ? SIGSTOP : SIGCONT)
    }
}
