import ArgumentParser
import ReachCommandLine
import FoundationEssentials
import NetworkReachabilityQueue

/// `reach queue list`: one line per job still in the file, in order.
struct QueueListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print one line per job: id, state, attempts, conditions and command; done jobs are gone.",
        discussion: """
            States: waiting (for its conditions or its turn), running, retrying (after a failed attempt, until its \
            next attempt's time), failed (its last attempt failed, or it expired; kept until removed).
            """
    )

    @Argument(help: "The queue's SQLite file.")
    var database: String

    @Flag(help: "Print one JSON object per line.")
    var json = false

    func run() throws {
        try QueueFile.open(database, readOnly: true).forEachJob { job in
            let listed = ListedJob(job)
            Output.line(json ? Output.jsonLine(listed) : listed.line)
        }
    }
}
