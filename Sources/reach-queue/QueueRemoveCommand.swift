import ArgumentParser
import ReachCommandLine
import NetworkReachabilityQueue

/// `reach queue remove`: deletes a job whatever its state; a running command is stopped by its worker.
struct QueueRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a job whatever its state; if its command runs, the worker stops it (SIGTERM).",
        discussion: "Exits 1 when the file holds no job with that id."
    )

    @Argument(help: "The queue's SQLite file.", transform: QueueFilePath.parser)
    var database: String

    @Argument(help: "The job's id, as `add` printed it.", transform: JobID.init)
    var id: JobID

    func run() throws {
        guard try QueueFile.open(database).remove(id.value) else {
            Output.say("\(QueueError.noSuchJob(id.value))")
            throw ExitCode(1)
        }
    }
}
