import ArgumentParser
import ReachCommandLine
import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityKit
import NetworkReachabilityQueue

/// `reach queue add`: keeps a command in the file, committed before its id is printed.
struct QueueAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Keep a command to run when the network allows; print its id once it is on the disk.",
        discussion: """
            The command runs in this directory, with the worker's environment and REACH_JOB_ID and REACH_ATTEMPT \
            set. It runs while TARGET is reachable and every --when condition holds; exit status 0 ends it, any \
            other is a failed attempt, retried after 1, 2, 4... seconds (--retry-delay, doubled each time, at most \
            an hour) until --attempts, after which it is kept as failed.
            """
    )

    @Argument(help: "The queue's SQLite file; created when missing.")
    var database: String

    @Option(
        name: .customLong("when"),
        help: "Conditions beyond a reachable target, comma-separated: validated, unmetered, not-roaming.",
        transform: QueueCondition.list)
    var conditions: [[QueueCondition]] = []

    @OptionGroup var interfaces: InterfaceOptions

    @Option(help: "What must be reachable: internet, a host name, a URL or an address.")
    var target = "internet"

    @Option(help: "A job already queued under this key is replaced by this one (or kept, with --keep).")
    var key: String?

    @Flag(help: "With --key: keep the job queued under it, and print its id, instead of replacing it.")
    var keep = false

    @Option(help: "The most attempts before the job is kept as failed.", transform: Count.parser(in: 1...1000))
    var attempts = Count(5)

    @Option(
        help: "Seconds to wait after the first failed attempt; each further failure doubles it, up to an hour.",
        transform: Seconds.parser(in: Seconds.retryDelay))
    var retryDelay = Seconds(duration: .seconds(1))

    @Option(
        help: "Seconds from now after which the job is failed rather than run.",
        transform: Seconds.parser(in: Seconds.expiry))
    var expires: Seconds?

    @Option(
        help: "Refuse the job (exit 75) while the file holds this many jobs, failed ones included.",
        transform: Count.parser(in: 1...10_000_000))
    var maxJobs = Count(QueueLimits().maximumJobs)

    @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.")
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else { throw ValidationError("a command is needed after --") }
        if keep && key == nil { throw ValidationError("--keep needs --key") }
        do {
            _ = try jobConditions().reachabilityTarget()
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func run() throws {
        var limits = QueueLimits()
        limits.maximumJobs = maxJobs.value
        let store = try JobStore(path: database, limits: limits)
        let job = JobCommand(arguments: Self.rawCommand(parsed: command), directory: Self.rawDirectory())
        var submission = JobStore.Submission(kind: JobCommand.kind, payload: Array(try JSONEncoder().encode(job)))
        submission.conditions = try jobConditions()
        submission.retryPolicy = try RetryPolicy(
            maximumAttempts: attempts.value, initialDelay: retryDelay.duration, multiplier: 2,
            maximumDelay: max(.seconds(3600), retryDelay.duration))
        submission.key = key
        submission.replacesQueued = !keep
        let now = JobStore.now()
        submission.expiresAt = expires.map { $0.duration.after(now) }
        Output.line("\(try store.submit(submission, now: now))")
    }

    /// The command's arguments as the process got their bytes (the parsed ones hold U+FFFD where a byte is not
    /// UTF-8): those after the first `--`, when they are the parsed ones.
    private static func rawCommand(parsed: [String]) -> [[UInt8]] {
        let raw = (0..<Int(CommandLine.argc)).map { index in
            CommandLine.unsafeArgv[index].map { Array(UnsafeBufferPointer(start: $0, count: strlen($0))).map { UInt8(bitPattern: $0) } }
                ?? []
        }
        guard let terminator = raw.firstIndex(of: Array("--".utf8)) else { return parsed.map { Array($0.utf8) } }
        let command = Array(raw[(terminator + 1)...])
        let matches = command.count == parsed.count
            && zip(command, parsed).allSatisfy { String(decoding: $0, as: UTF8.self) == $1 }
        return matches ? command : parsed.map { Array($0.utf8) }
    }

    /// The working directory's bytes.
    private static func rawDirectory() -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return Array(FileManager.default.currentDirectoryPath.utf8) }
        return buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    }

    private func jobConditions() throws -> JobConditions {
        let words = Set(conditions.joined())
        return JobConditions(
            target: target, reachable: true, validated: words.contains(.validated), unmetered: words.contains(.unmetered),
            notRoaming: words.contains(.notRoaming), requiredType: interfaces.requiredType,
            prohibitedTypes: Set(interfaces.prohibitedTypes))
    }
}
