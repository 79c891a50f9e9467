public import Foundation

/// The outcome of a finished process.
public struct CommandResult: Sendable {
    /// Makes a result.
    public init(status: Int32, standardOutput: String, standardError: String) {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
    }
    /// The exit status.
    public var status: Int32
    /// What it printed on standard output.
    public var standardOutput: String
    /// What it printed on standard error.
    public var standardError: String

    /// Standard output split into non-empty lines.
    public var lines: [String] { standardOutput.split(separator: "\n").map(String.init) }
}

/// A failed set-up command, with what it printed.
public struct CommandError: Error, CustomStringConvertible {
    /// The command that failed.
    public var command: [String]
    /// How it ended.
    public var result: CommandResult
    /// Makes an error.
    public init(command: [String], result: CommandResult) {
        self.command = command
        self.result = result
    }
    /// The command, its status and its standard error.
    public var description: String {
        "\(command.joined(separator: " ")) exited \(result.status): \(result.standardError)"
    }
}

/// Runs processes to completion.
public enum Command {
    /// Runs `arguments` (the first is looked up on `PATH`) and waits for it.
    ///
    /// A process still running after `timeout` seconds is killed and reported as a ``CommandError``, so a hung
    /// command fails its test instead of hanging the whole run.
    @discardableResult
    public static func run(_ arguments: [String], check: Bool = false, timeout: TimeInterval = 300) throws -> CommandResult {
        OwnThreadTrait.requireOffThePool("running \(arguments.first ?? "a command")")
        let output = ExclusivePipe()
        let error = ExclusivePipe()
        let process = try Subprocess(arguments, standardOutput: output, standardError: error)
        let ended = DispatchSemaphore(value: 0)
        let timedOut = Locked(false)
        let watchdog = Thread {
            guard ended.wait(timeout: .now() + timeout) == .timedOut else { return }
            timedOut.set(true)
            process.send(SIGKILL)
        }
        watchdog.start()
        defer { ended.signal() }
        // Read both pipes before waiting, so a chatty process cannot fill a pipe and stall.
        let errorData = Locked(Data())
        let errorReader = Thread { errorData.set(error.readAll()) }
        errorReader.start()
        let outputData = output.readAll()
        let status: Int32 =
            switch process.wait() {
            case .exited(let code): code
            case .signaled(let signal): 128 + signal
            }
        while !errorData.isSet { usleep(1000) }
        let result = CommandResult(
            status: status, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData.value, as: UTF8.self))
        if timedOut.value {
            var late = result
            late.standardError += "\n(killed: still running after \(Int(timeout)) s)"
            throw CommandError(command: arguments, result: late)
        }
        if check && result.status != 0 { throw CommandError(command: arguments, result: result) }
        return result
    }

    /// Whether the tests run as root, which namespace tests need.
    public static var isRoot: Bool { getuid() == 0 }
}

/// A value set once from another thread.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    private var wasSet = false
    init(_ value: Value) { stored = value }
    func set(_ value: Value) {
        lock.withLock {
            stored = value; wasSet = true
        }
    }
    var isSet: Bool { lock.withLock { wasSet } }
    var value: Value { lock.withLock { stored } }
}
