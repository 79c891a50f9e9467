import ArgumentParser
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import ReachCommandLine

/// `reach queue`: the durable queue of commands, run by the `reach-queue` program. It is a program of its own so that
/// the other commands do not load what the queue needs (SQLite, GRDB and with it all of Foundation): about 6 MiB more
/// resident for every `reach watch`.
struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Keep commands in a file and run them when the network allows (add, run, list, log, wait, retry, ...).",
        discussion: """
            Runs the reach-queue program, installed beside reach or on PATH, with the same arguments: \
            `reach queue --help` and reach-queue(1) describe them.
            """
    )

    @Argument(parsing: .captureForPassthrough, help: "A subcommand of reach-queue (add, run, list, ...) and its arguments.")
    var arguments: [String] = []

    func run() throws { Self.forward() }

    /// Replaces this process with `reach-queue` and the arguments after `queue`: the one beside this executable, or
    /// the first on `PATH`. Exits 69 (EX_UNAVAILABLE) with one line when there is none.
    static func forward() -> Never {
        var path = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        let directory = length > 0 ? String(decoding: path[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let sibling = (directory.lastIndex(of: "/").map { String(directory[..<$0]) } ?? ".") + "/reach-queue"
        // The arguments' bytes as this process got them: CommandLine.arguments would repair bytes that are not UTF-8.
        var cArguments = [strdup("reach-queue")] + (2..<Int(CommandLine.argc)).map { strdup(CommandLine.unsafeArgv[$0]!) } + [nil]
        execv(sibling, &cArguments)
        execvp("reach-queue", &cArguments)
        Output.say("'reach queue' needs the reach-queue program, beside reach (\(sibling)) or on PATH")
        Output.endProcess(69)
    }
}
