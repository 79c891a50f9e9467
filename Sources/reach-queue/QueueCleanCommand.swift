import ArgumentParser
import NetworkReachabilityQueue
import ReachCommandLine

/// `reach queue clean`: removes the outcomes kept of done jobs, and with `--failed` the failed jobs.
struct QueueCleanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Remove the done jobs kept (at least the latest 1,000, for 7 days) and, with --failed, the failed jobs.",
        discussion: "Their commands and output leave the file: its free pages are overwritten."
    )

    @Argument(help: "The queue's SQLite file.", transform: QueueFilePath.parser)
    var database: String

    @Flag(help: "Remove the failed jobs too.")
    var failed = false

    func run() throws {
        try QueueFile.open(database).clean(failed: failed)
    }
}
