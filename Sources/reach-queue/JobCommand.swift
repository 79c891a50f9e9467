import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityPOSIX
import NetworkReachabilityQueue

/// A job of `reach queue`: a command and the directory it was added in, run as `at(1)` runs its jobs, in that
/// directory with the worker's environment.
struct JobCommand: Codable, Sendable {
    /// The kind its jobs are stored as.
    static let kind = "command"
    /// How long a command has after SIGTERM before its process group gets SIGKILL.
    static let stopGrace = Duration.seconds(10)

    /// The program (looked up on the worker's `PATH`) and its arguments, as text (bytes that are not UTF-8 shown as
    /// U+FFFD).
    let arguments: [String]
    /// Where it runs, as text.
    let directory: String
    /// The arguments' bytes, kept where one is not UTF-8: what runs, byte for byte.
    let argumentBytes: [Data]?
    /// The directory's bytes, kept where it is not UTF-8.
    let directoryBytes: Data?
    /// Exit statuses after which the job fails at once, without its remaining attempts (`--permanent-failure`).
    var permanentFailures: [Int32]?

    /// The command `arguments` (the program first), to run in `directory`, both as the system gave their bytes.
    init(arguments: [[UInt8]], directory: [UInt8]) {
        let texts = arguments.map { String(validating: $0, as: UTF8.self) }
        self.arguments = zip(arguments, texts).map { bytes, text in text ?? String(decoding: bytes, as: UTF8.self) }
        argumentBytes = texts.contains(nil) ? arguments.map { Data($0) } : nil
        let directoryText = String(validating: directory, as: UTF8.self)
        self.directory = directoryText ?? String(decoding: directory, as: UTF8.self)
        directoryBytes = directoryText == nil ? Data(directory) : nil
    }

    /// What runs: the arguments' bytes.
    var runArguments: [[UInt8]] { argumentBytes.map { $0.map { Array($0) } } ?? arguments.map { Array($0.utf8) } }
    /// Where it runs: the directory's bytes.
    var runDirectory: [UInt8] { directoryBytes.map { Array($0) } ?? Array(directory.utf8) }

    /// The command `job` carries.
    ///
    /// - Throws: ``JobFailure`` for a job of another kind, or whose payload is no command (it fails for good).
    static func decode(_ job: DurableJob) throws -> JobCommand {
        guard let command = try? job.payload(as: JobCommand.self), !command.arguments.isEmpty else {
            throw JobFailure("the job's payload is no command", isPermanent: true)
        }
        return command
    }

    /// Runs the command for `job` and returns when it exits 0; throws a ``JobFailure`` with its exit status (`128 + N`
    /// after signal N) for any other end, permanent for a status in ``permanentFailures``.
    ///
    /// - It runs in a session and process group of its own, with `/dev/null` as stdin, default signal actions and no
    ///   blocked signals, and `REACH_JOB_ID` and `REACH_ATTEMPT` in its environment. Its stdout and stderr go to the
    ///   worker's and to the job's output in the file (``CommandOutput``), all of it read before its end counts.
    /// - `workerLock`, the worker's locked descriptor, is its descriptor 3: a command outlives a worker killed with
    ///   SIGKILL, and while it runs no next worker can start the same job a second time.
    /// - Cancelled (its conditions stopped holding, or the worker stops), its group is sent SIGTERM, and SIGKILL
    ///   ``stopGrace`` later if it has not ended.
    /// - When it ends, whatever it left running is sent SIGKILL and reaped before its end counts
    ///   (``LeftoverProcesses``): nothing it started outlives it.
    func run(as job: DurableJob, workerLock: Int32?) async throws {
        let output = try CommandOutput(for: job)
        let process: Child
        do {
            defer { output.started() }
            process = try Child(spawning: self, as: job, workerLock: workerLock, output: output)
        } catch {
            output.commandEnded()
            await output.finish()
            throw error
        }
        let status = await withTaskCancellationHandler {
            await process.exit()
        } onCancel: {
            process.stop(grace: Self.stopGrace)
        }
        output.commandEnded()
        await output.finish()
        switch status {
        case .exited(0): return
        case .exited(let code):
            throw JobFailure(
                "exit status \(code)", exitStatus: code, isPermanent: permanentFailures?.contains(code) == true)
        case .signaled(let signal): throw JobFailure("ended by signal \(signal)", exitStatus: 128 + signal)
        }
    }

    /// How a command's process ended.
    enum Termination: Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    /// The command's process: started with `posix_spawn`, reaped by a thread of its own that blocks in `waitpid`.
    private final class Child: Sendable {
        let pid: pid_t
        /// Set once reaped: after that its pid may name another process, and nothing is sent to it.
        private let ended = Locked<Termination?>(nil)
        private let waiters = Locked<[CheckedContinuation<Termination, Never>]>([])

        init(spawning command: JobCommand, as job: DurableJob, workerLock: Int32?, output: CommandOutput) throws {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, output.writer, STDOUT_FILENO)
            posix_spawn_file_actions_adddup2(&actions, output.writer, STDERR_FILENO)
            if let workerLock { posix_spawn_file_actions_adddup2(&actions, workerLock, 3) }
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var noSignals = sigset_t()
            sigemptyset(&noSignals)
            var defaults = sigset_t()
            sigfillset(&defaults)
            posix_spawnattr_setsigmask(&attributes, &noSignals)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            // The leader of a session (and group) of its own: its group is what SIGTERM and SIGKILL stop, its
            // session what the worker ends with it (LeftoverProcesses). POSIX_SPAWN_SETSID is glibc's 0x80.
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | 0x80))
            // The shell changes into the directory and replaces itself with the command, looked up on PATH; a
            // directory that is gone or a command that is not found is its exit status (1, 127), a failed attempt.
            let arguments =
                [Array("sh".utf8), Array("-c".utf8), Array("cd -- \"$0\" && exec \"$@\"".utf8), command.runDirectory]
                + command.runArguments
            var environment = ProcessInfo.processInfo.environment
            environment["REACH_JOB_ID"] = "\(job.id)"
            environment["REACH_ATTEMPT"] = "\(job.attempt)"
            var cArguments = arguments.map(Self.cString) + [nil]
            var cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in cArguments + cEnvironment { free(pointer) } }
            var child = pid_t()
            let result = posix_spawn(&child, "/bin/sh", &actions, &attributes, &cArguments, &cEnvironment)
            guard result == 0 else { throw JobFailure("cannot start /bin/sh: \(String(cString: strerror(result)))") }
            pid = child
            LeftoverProcesses.began(child)
            try DedicatedThread(name: "reach-job") { [self] in reap() }.detach()
        }

        /// A C string of `bytes` (which hold no NUL: they came from one), for `posix_spawn`; freed by the caller.
        private static func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
            let pointer = malloc(bytes.count + 1)!.assumingMemoryBound(to: CChar.self)
            for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
            pointer[bytes.count] = 0
            return pointer
        }

        /// Waits for the process to end.
        func exit() async -> Termination {
            await withCheckedContinuation { continuation in
                let termination = ended.withLock { ended in
                    if ended == nil { waiters.withLock { $0.append(continuation) } }
                    return ended
                }
                if let termination { continuation.resume(returning: termination) }
            }
        }

        /// SIGTERM to its group now, SIGKILL after `grace` unless it has ended.
        func stop(grace: Duration) {
            send(SIGTERM)
            Task { [self] in
                try? await Task.sleep(for: grace)
                send(SIGKILL)
            }
        }

        private func send(_ signal: Int32) {
            ended.withLock { ended in
                if ended == nil { _ = kill(-pid, signal) }
            }
        }

        /// Blocks until the process ends without reaping it, then reaps it under the lock `send` takes: a signal
        /// never goes to a pid that may have been given to another process.
        private func reap() {
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            // Ended, not reaped: its group and session are still its own while what it left is ended.
            LeftoverProcesses.ended(pid)
            let (termination, continuations) = ended.withLock { ended in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                LeftoverProcesses.reaped(pid)
                let termination: Termination =
                    status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
                ended = termination
                return (
                    termination,
                    waiters.withLock { waiters in
                        defer { waiters = [] }
                        return waiters
                    }
                )
            }
            for continuation in continuations { continuation.resume(returning: termination) }
        }
    }
}
