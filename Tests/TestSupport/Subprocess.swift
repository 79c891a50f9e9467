public import Foundation

/// A child process started with `posix_spawn` and reaped with `waitpid`.
///
/// Foundation's `Process` was seen to hang in `waitUntilExit` for an exited child while others ran; and its
/// children inherit the test thread's blocked signals. This gives each child an empty signal mask, default
/// signal actions, `/dev/null` as input and exactly the descriptors it is handed.
public final class Subprocess: @unchecked Sendable {
    /// How a process ended.
    public enum Termination: Equatable, Sendable {
        /// It called `exit` with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)
    }

    /// The child's process id.
    public let pid: pid_t
    private let lock = NSLock()
    private var ended: Termination?  // guarded by `lock`

    /// Starts `arguments` (the first looked up on `PATH`) with its standard output and error on the given
    /// pipes' write ends (or `/dev/null`); the parent's copies of those write ends are closed once it runs.
    public init(_ arguments: [String], standardOutput: ExclusivePipe? = nil, standardError: ExclusivePipe? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (target, pipe) in [(Int32(1), standardOutput), (Int32(2), standardError)] {
            if let pipe {
                posix_spawn_file_actions_adddup2(&actions, pipe.writeDescriptor, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signalNumber in [SIGINT, SIGTERM, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signalNumber) }
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var cArguments = arguments.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var child = pid_t()
        let result = ExclusivePipe.spawnLock.withLock {
            posix_spawnp(&child, arguments[0], &actions, &attributes, &cArguments, environ)
        }
        guard result == 0 else {
            throw CommandError(
                command: arguments,
                result: CommandResult(status: result, standardOutput: "", standardError: "posix_spawnp failed"))
        }
        pid = child
        standardOutput?.closeWritingInParent()
        standardError?.closeWritingInParent()
    }

    /// Waits for the process to end (once; later calls return the same answer).
    @discardableResult
    public func wait() -> Termination {
        // Waits for the end without reaping it, outside the lock, so `send` still works meanwhile (a watchdog's
        // kill); the child is reaped under the lock, so `send` never signals a pid that may have been reused.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        return lock.withLock {
            if let ended { return ended }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let termination: Termination =
                status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
            ended = termination
            return termination
        }
    }

    /// Whether the process still runs (it is reaped if it has ended).
    public var isRunning: Bool {
        lock.withLock {
            guard ended == nil else { return false }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return true }
            ended = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
            return false
        }
    }

    /// The running process's peak resident memory in KiB (`VmHWM`: its own image's, unlike `ru_maxrss`,
    /// which also counts the parent's memory shared before exec).
    public var peakResidentKiB: Int? {
        guard let status = try? TestFile.text("/proc/\(pid)/status"),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// Ends the process with SIGKILL and reaps it: what every test's cleanup does with what it started.
    public func end() {
        send(SIGKILL)
        wait()
    }

    /// Sends `signal` unless the process has been reaped (its pid could belong to another process by then).
    public func send(_ signal: Int32) {
        lock.withLock {
            if ended == nil { _ = kill(pid, signal) }
        }
    }
}
