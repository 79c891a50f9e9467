import ArgumentParser
import ReachCommandLine
import FoundationEssentials
import NetworkReachabilityQueue

/// `reach queue list`: one line per job still in the file, in order.
struct QueueListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print one line per job: id, state, attempts, conditions and command; with --all, the done ones too.",
        discussion: """
            States: waiting (for its conditions, its time or its turn), blocked (until the job it follows is \
            done), running, retrying (after a failed attempt, until its next attempt's time), failed (its last \
            attempt failed, it expired, or the job it followed failed; kept until removed or retried), done (kept \
            for --all: at least the latest 1,000, for 7 days). A paused queue says so on stderr.
            """
    )

    @Argument(help: "The queue's SQLite file.", transform: QueueFilePath.parser)
    var database: String

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @Flag(help: "Print the done jobs kept too, with their exit status in --json.")
    var all = false

    func run() throws {
        let store = try QueueFile.open(database, readOnly: true)
        if try store.isPaused() { Output.say("the queue is paused: no job starts until `reach queue resume`") }
        try store.forEachJob(includingDone: all) { job in
            let listed = ListedJob(job)
            Output.line(json ? Output.jsonLine(listed) : listed.line)
        }
    }
}
