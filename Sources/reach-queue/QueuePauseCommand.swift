import ArgumentParser
import NetworkReachabilityQueue
import ReachCommandLine

/// `reach queue pause` and `resume`: no job starts while the queue is paused.
struct QueuePauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Start no job until `resume`; the jobs running run on. Kept in the file, across the worker's restarts."
    )

    @Argument(help: "The queue's SQLite file.", transform: QueueFilePath.parser)
    var database: String

    func run() throws { try QueueFile.open(database).setPaused(true) }
}

/// `reach queue resume`: jobs start again.
struct QueueResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Start jobs again after `pause`.")

    @Argument(help: "The queue's SQLite file.", transform: QueueFilePath.parser)
    var database: String

    func run() throws { try QueueFile.open(database).setPaused(false) }
}
