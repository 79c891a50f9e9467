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
import NetworkReachabilityPOSIX

/// `reach queue add`: keeps a command in the file, committed before its id is printed.
struct QueueAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Keep a command to run when the network allows; print its id once it is on the disk.",
        discussion: """
            The command runs in this directory, with the worker's environment and REACH_JOB_ID and REACH_ATTEMPT \
            set. It runs while TARGET is reachable and every --when condition holds; exit status 0 ends it, any \
            other is a failed attempt, retried after 1, 2, 4... seconds (--retry-delay, doubled each time, at most \
            an hour) until --attempts, after which it is kept as failed, and so are the jobs added --after it. \
            Among the jobs that may run, a higher --priority runs first, then the first added. Who may write the \
            file may run commands as the worker's user.
            """
    )

    @Argument(help: "The queue's SQLite file; created when missing.", transform: QueueFilePath.parser)
    var database: String

    @Option(
        name: .customLong("when"),
        help: "Conditions beyond a reachable target, comma-separated: validated, unmetered, not-roaming, quality=3g, network=home.",
        transform: QueueCondition.list)
    var conditions: [[QueueCondition]] = []

    @OptionGroup var interfaces: InterfaceOptions

    @Option(help: "What must be reachable: internet, a host name, a URL or an address.")
    var target = "internet"

    @Option(help: "A job already queued under this key is replaced by this one (or kept, with --keep).")
    var key: String?

    @Flag(help: "With --key: keep the job queued under it, and print its id, instead of replacing it.")
    var keep = false

    @Option(
        parsing: .unconditional, help: "The most attempts before the job is kept as failed.",
        transform: Count.parser(in: 1...1000))
    var attempts = Count(5)

    @Option(
        parsing: .unconditional,
        help: "Seconds to wait after the first failed attempt; each further failure doubles it, up to an hour.",
        transform: Seconds.parser(in: Seconds.retryDelay))
    var retryDelay = Seconds(duration: .seconds(1))

    @Option(
        parsing: .unconditional, help: "Seconds from now after which the job is failed rather than run.",
        transform: Seconds.parser(in: Seconds.expiry))
    var expires: Seconds?

    @Option(
        parsing: .unconditional,
        help: "Run only after the job with this id succeeded; if it fails or is removed, this one fails.",
        transform: JobID.init)
    var after: JobID?

    @Option(
        parsing: .unconditional, help: "Seconds from now before which the job does not run.",
        transform: Seconds.parser(in: Seconds.delay))
    var delay: Seconds?

    @Option(
        help: "A time before which the job does not run, in ISO 8601 with its zone (2026-11-29T03:00:00Z), within 10 years.",
        transform: Self.time)
    var notBefore: Date?

    @Option(
        parsing: .unconditional,
        help: "Seconds one attempt may run; then it is stopped (SIGTERM, SIGKILL 10 s later) and counts as failed, exit status 124.",
        transform: Seconds.parser(in: Seconds.jobTimeout))
    var timeout: Seconds?

    @Option(
        parsing: .unconditional, help: "Among the jobs that may run, a higher priority runs first (-1000 to 1000).",
        transform: Self.priority)
    var priority = 0

    @Option(
        help: "Exit statuses, comma-separated, after which the job fails at once, without its remaining attempts.",
        transform: Self.statuses)
    var permanentFailure: [Int32] = []

    @Option(
        parsing: .unconditional, help: "Refuse the job (exit 75) while the file holds this many jobs, failed ones included.",
        transform: Count.parser(in: 1...10_000_000))
    var maxJobs = Count(QueueLimits().maximumJobs)

    @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.")
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else { throw ValidationError("a command is needed after --") }
        if keep && key == nil { throw ValidationError("--keep needs --key") }
        if key?.isEmpty == true { throw ValidationError("--key must not be empty") }
        if delay != nil && notBefore != nil { throw ValidationError("--delay and --not-before are one choice: give one") }
        let qualities = Set(conditions.joined().compactMap(\.quality))
        if qualities.count > 1 {
            let words = qualities.sorted().map { "quality=\($0)" }.joined(separator: ", ")
            throw ValidationError("--when names \(qualities.count) qualities (\(words)): give one")
        }
        _ = try CommandFailure.validating { try jobConditions().reachabilityTarget() }
    }

    func run() throws {
        var limits = QueueLimits()
        limits.maximumJobs = maxJobs.value
        var job = JobCommand(arguments: Self.rawCommand(parsed: command), directory: Self.rawDirectory())
        job.permanentFailures = permanentFailure.isEmpty ? nil : permanentFailure
        var submission = JobStore.Submission(kind: JobCommand.kind, payload: Array(try JSONEncoder().encode(job)))
        submission.conditions = try jobConditions()
        submission.retryPolicy = try RetryPolicy(
            maximumAttempts: attempts.value, initialDelay: retryDelay.duration, multiplier: 2,
            maximumDelay: max(.seconds(3600), retryDelay.duration))
        submission.key = key
        submission.replacesQueued = !keep
        let now = JobStore.now()
        submission.expiresAt = expires.map { $0.duration.after(now) }
        submission.notBefore =
            delay.map { $0.duration.after(now) } ?? notBefore.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
        submission.priority = priority
        submission.after = after?.value
        submission.timeout = timeout.map { $0.duration.saturatingMilliseconds }
        try submission.check(now: now)  // before the file is made
        let store = try JobStore(path: database, limits: limits, releasesReserve: false)
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

    /// `--not-before`'s transform: an ISO 8601 time with its zone (and a fraction of a second, kept to the
    /// millisecond), no later than ``Seconds/delay`` allows `--delay` to reach.
    private static func time(_ text: String) throws -> Date {
        let styles = [Date.ISO8601FormatStyle(includingFractionalSeconds: true), Date.ISO8601FormatStyle()]
        guard let date = styles.lazy.compactMap({ try? $0.parse(text) }).first else {
            throw ValidationError("must be a time in ISO 8601 with its zone, as 2026-11-29T03:00:00Z or 2026-11-29T04:00:00+01:00")
        }
        // The format style rolls a day past its month's end over (February 30 is March 2): such a day is refused.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let day = text.prefix(10).split(separator: "-").compactMap { Int($0) }
        guard day.count == 3, DateComponents(calendar: calendar, year: day[0], month: day[1], day: day[2]).isValidDate else {
            throw ValidationError("names a day that does not exist")
        }
        guard date.timeIntervalSinceNow <= Seconds.delay.upperBound else {
            throw ValidationError("must be within 10 years from now, as --delay is")
        }
        return date
    }

    /// `--priority`'s transform: a whole number from -1000 to 1000.
    private static func priority(_ text: String) throws -> Int {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text),
            (-1000...1000).contains(value)
        else { throw ValidationError("must be a whole number from -1000 to 1000") }
        return value
    }

    /// `--permanent-failure`'s transform: exit statuses from 1 to 255, comma-separated.
    private static func statuses(_ text: String) throws -> [Int32] {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { word in
            guard !word.isEmpty, word.count <= 3, word.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int32(word),
                (1...255).contains(value)
            else { throw ValidationError("'\(word)' is no exit status; give statuses from 1 to 255, comma-separated") }
            return value
        }
    }

    /// The working directory's bytes.
    private static func rawDirectory() -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return Array(FileManager.default.currentDirectoryPath.utf8) }
        return buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    }

    private func jobConditions() throws -> JobConditions {
        let words = Set(conditions.joined())
        let networks = Set(words.compactMap(\.network))
        guard networks.count <= 1 else {
            throw ValidationError("a job waits for one network, not \(networks.sorted().joined(separator: " and "))")
        }
        return JobConditions(
            target: target, reachable: true, validated: words.contains(.validated), unmetered: words.contains(.unmetered),
            notRoaming: words.contains(.notRoaming), requiredType: interfaces.requiredType,
            prohibitedTypes: Set(interfaces.prohibitedTypes), minimumQuality: words.lazy.compactMap(\.quality).first,
            network: networks.first)
    }
}
