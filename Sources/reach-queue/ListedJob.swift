import FoundationEssentials
import NetworkReachabilityQueue

/// A job as `reach queue list` prints it: a line of tab-separated fields, or a JSON object.
struct ListedJob: Encodable {
    let id: Int64
    /// `waiting`, `blocked`, `running`, `retrying`, `failed` or `done`.
    let state: String
    /// Attempts started, the running one included.
    let attempts: Int
    let maximumAttempts: Int
    /// The condition words, as `--when` takes them (`reachable` included).
    let conditions: [String]
    let target: String
    let requiredType: String?
    let prohibitedTypes: [String]
    /// The command and its arguments; for a job some other program queued, its kind alone.
    let command: [String]
    let directory: String?
    let key: String?
    /// When a retrying job runs next, or a delayed one first, in ISO 8601 (UTC).
    let nextAttemptAt: String?
    /// Among the jobs that may run, a higher one runs first.
    let priority: Int
    /// The job that must succeed before this one runs.
    let after: Int64?
    /// Seconds one attempt may run.
    let timeout: Double?
    /// When it was done or failed for good, in ISO 8601 (UTC).
    let finishedAt: String?
    /// Its last attempt's exit status: 0 when done, 128+N after signal N, 124 after its timeout.
    let exitStatus: Int32?
    let expiresAt: String?
    /// Why its last attempt failed.
    let lastError: String?
    /// The command's arguments in base64, where one is not UTF-8 (`command` then shows U+FFFD in its place): what
    /// runs, byte for byte.
    let commandBase64: [String]?
    /// The command's bytes, as it runs: the line shows these.
    private let commandBytes: [[UInt8]]

    private enum CodingKeys: String, CodingKey {
        case id, state, attempts, maximumAttempts, conditions, target, requiredType, prohibitedTypes, command
        case commandBase64, directory
        case key, nextAttemptAt, expiresAt, lastError, priority, after, timeout, finishedAt, exitStatus
    }

    init(_ job: StoredJob) {
        id = job.id
        state = job.state.rawValue
        attempts = job.attempts
        maximumAttempts = job.retryPolicy.maximumAttempts
        conditions = QueueCondition.words(of: job.conditions)
        target = job.conditions.target
        requiredType = job.conditions.requiredType?.rawValue
        prohibitedTypes = job.conditions.prohibitedTypes.map(\.rawValue).sorted()
        let command = job.kind == JobCommand.kind ? try? JSONDecoder().decode(JobCommand.self, from: Data(job.payload)) : nil
        self.command = command?.arguments ?? ["(\(job.kind))"]
        commandBytes = command?.runArguments ?? [Array("(\(job.kind))".utf8)]
        commandBase64 = command?.argumentBytes?.map { $0.base64EncodedString() }
        directory = command?.directory
        key = job.key
        let delayed = (job.state == .waiting || job.state == .blocked) && job.nextAttemptAt > JobStore.now()
        nextAttemptAt = job.state == .retrying || delayed ? Self.time(job.nextAttemptAt) : nil
        priority = job.priority
        after = job.after
        timeout = job.timeout.map { Double($0) / 1000 }
        finishedAt = job.finishedAt.map(Self.time)
        exitStatus = job.exitStatus
        expiresAt = job.expiresAt.map(Self.time)
        lastError = job.lastError
    }

    /// `id  state  attempts/maximum  conditions  command`, separated by tabs; the conditions are the words joined by
    /// commas, then `target=`, `require=` and `prohibit=` where they are not the default. The command's arguments
    /// and the target are written as a shell reads them back (``ShellWord``): no byte of theirs reaches the terminal
    /// as a control.
    var line: String {
        var words = conditions
        if target != "internet" { words.append("target=\(ShellWord.quoted(target))") }
        if let requiredType { words.append("require=\(requiredType)") }
        words += prohibitedTypes.map { "prohibit=\($0)" }
        if let after { words.append("after=\(after)") }
        if priority != 0 { words.append("priority=\(priority)") }
        return [
            "\(id)", state, "\(attempts)/\(maximumAttempts)", words.joined(separator: ","),
            commandBytes.map(ShellWord.quoted).joined(separator: " "),
        ].joined(separator: "\t")
    }

    private static func time(_ milliseconds: Int64) -> String {
        let seconds = Double(milliseconds) / 1000
        guard seconds.isFinite, abs(seconds) < 253_402_300_800 else {
            return milliseconds < 0 ? "0000-01-01T00:00:00Z" : "9999-12-31T23:59:59Z"
        }
        return Date(timeIntervalSince1970: seconds).formatted(.iso8601)
    }
}
