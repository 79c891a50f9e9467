import ArgumentParser
import ReachCommandLine
import Dispatch
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityKit
import NetworkReachabilityQueue
import NetworkReachabilityValidation

/// `reach queue run`: the worker. Runs the file's commands in order while their conditions hold, until SIGTERM or
/// SIGINT, after which a running command is sent SIGTERM, its job stays queued, and the worker exits 0.
struct QueueRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the queue's commands in order while their conditions hold, until SIGTERM or SIGINT.",
        discussion: """
            A command whose conditions stop holding while it runs is sent SIGTERM (SIGKILL 10 s later) and runs \
            again when they hold, without spending an attempt. So is a running command when the worker is stopped; \
            its job stays queued. Whatever a command started ends when it does. A command's stdout and stderr go, in \
            the order written, to the worker's stdout and the job's log. Each command's end is one line on stderr, \
            and so is each failed write (a full disk), tried again within 10 s. Exits 75 while another worker runs \
            the file, or a command of a killed one still runs; 77 when the file is a link, not a regular file, \
            another user's, or in a directory others may write (unless it is sticky, as /tmp); 65 when it is damaged.
            """
    )

    @Argument(help: "The queue's SQLite file; created when missing.", transform: QueueFilePath.parser)
    var database: String

    /// `--validate URL`, for jobs added with `--when validated`.
    @OptionGroup var validation: ValidationOptions

    @Option(parsing: .unconditional, help: "How many commands may run at once.", transform: Count.parser(in: 1...64))
    var concurrency = Count(1)

    @OptionGroup var logging: VerboseOption

    func validate() throws {
        _ = try CommandFailure.validating { try validation.configuration() }
    }

    func run() async throws {
        let stop = Self.stopSignals()
        // A stdout or stderr whose reader left is an error of a write, not the worker's end (its commands get the
        // default action back).
        signal(SIGPIPE, SIG_IGN)
        LeftoverProcesses.becomeSubreaper()
        let logger = logging.logger
        var validator: ConnectivityValidator?
        if let configuration = try validation.configuration() {
            validator = try ConnectivityValidator(
                reachability: NetworkReachability(target: .internet, logger: logger), configuration: configuration)
        }
        try JobStore.checkRunnable(database)  // before SQLite makes its journals beside a file it must refuse
        let queue = try DurableWorkQueue(
            path: database, maximumRunning: concurrency.value, validator: validator, logger: logging.loggerWithWarnings
        ) { target throws(ReachabilityError) in try NetworkReachability(target: target, logger: logger) }
        NetworkSettingsStart.start(logger: logger)
        RadioDetailsStart.start(verbose: logging.verbose, logger: logger)
        queue.register(JobCommand.kind) { [queue] job in
            try await JobCommand.decode(job).run(as: job, workerLock: queue.workerLockDescriptor)
        }
        queue.whenRunEnds { id, attempt, outcome in Output.say("job \(id), attempt \(attempt): \(outcome)") }
        do {
            try queue.start()
        } catch .anotherWorker(let path) {
            Output.say("another process runs the jobs of '\(path)', or a command of a killed worker still runs")
            throw ExitCode(75)  // EX_TEMPFAIL: try again once it has ended
        }
        if validator == nil, let waiting = try? queue.jobsNeedingValidation(), waiting > 0 {
            let jobs = waiting == 1 ? "1 job waits" : "\(waiting) jobs wait"
            Output.say("\(jobs) for validation, which needs --validate URL")
        }
        // Until SIGTERM or SIGINT, or until the file can no longer be used (damaged, replaced, made unsafe): then
        // the worker says so and exits non-zero, so that its service manager shows it.
        let (ends, end) = AsyncStream.makeStream(of: QueueError?.self)
        let signalled = Task {
            await stop.first()
            end.yield(nil)
        }
        Task { if let failure = await queue.failure() { end.yield(failure) } }  // ends at queue.stop()
        var failure: QueueError?
        for await reason in ends {
            failure = reason
            break
        }
        signalled.cancel()
        await queue.stop()
        validator?.close()
        if let failure {
            Output.say("\(failure)")
            throw ExitCode(failure.exitCode)
        }
    }


    /// SIGTERM and SIGINT, as a stream; their default action (ending the process) is replaced first.
    private static func stopSignals() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        ProcessSignals.handle([SIGINT, SIGTERM], label: "reach.queue.signals") { _ in continuation.yield() }
        return stream
    }
}

extension AsyncStream<Void> {
    /// Waits for the first element, or the end, or the task's cancellation.
    fileprivate func first() async {
        for await _ in self { return }
    }
}
