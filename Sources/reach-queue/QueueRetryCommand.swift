import ArgumentParser
import NetworkReachabilityQueue
import ReachCommandLine

/// `reach queue retry`: failed jobs run again, under their ids and in their places.
struct QueueRetryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Run failed jobs again, under their ids and in their places, with their attempts counted from 0.",
        discussion: """
            A retrying job runs at once. A job added --after another waits for it again. Exits 1 when the file \
            holds no such job, 64 when one is neither failed nor retrying, or follows a failed job not retried with it.
            """
    )

    @Argument(help: "The queue's SQLite file.", transform: QueueFilePath.parser)
    var database: String

    @Argument(help: "The jobs' ids.", transform: JobID.init)
    var ids: [JobID] = []

    @Flag(help: "Every failed job.")
    var failed = false

    func validate() throws {
        guard !ids.isEmpty != failed else { throw ValidationError("give the jobs' ids, or --failed") }
    }

    func run() throws {
        try QueueFile.open(database).retry(failed ? nil : ids.map(\.value), now: JobStore.now())
    }
}
