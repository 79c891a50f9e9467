import ArgumentParser
import NetworkReachabilityKit
import NetworkReachabilityQueue
import ReachCommandLine

/// `reach-queue`, which `reach queue` runs: commands kept in an SQLite file and run when the network allows, for
/// scripts.
@main
struct ReachQueue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reach-queue",
        abstract: "Keep commands in a file and run them when the network allows, across crashes and reboots.",
        discussion: """
            Also run as `reach queue`. `add` keeps a command with its conditions; `run` is the worker that runs \
            the commands in order while their conditions hold, at least once each: a command running when the \
            worker dies runs again at its next start. One worker runs a file; any number of processes may add to it.
            """,
        version: NetworkReachability.version,
        subcommands: [
            QueueAddCommand.self, QueueRunCommand.self, QueueListCommand.self, QueueLogCommand.self, QueueWaitCommand.self,
            QueueRetryCommand.self, QueueRemoveCommand.self, QueueCleanCommand.self, QueuePauseCommand.self,
            QueueResumeCommand.self,
        ]
    )

    /// Runs a command; every failure is one line on stderr and an exit status of sysexits(3).
    static func main() async {
        await CommandMain.run(Self.self, check: { try MistypedCommand.check(Self.self) }) { error in
            (error as? QueueError).map { ($0.exitCode, $0.description) }
        }
    }
}

extension QueueError {
    /// The exit status for the error, as sysexits(3) names them.
    var exitCode: Int32 {
        switch self {
        case .invalidJob: 64  // EX_USAGE
        case .notADatabase, .damaged: 65  // EX_DATAERR: the file is not a queue, or a damaged one; it was left as it is
        case .unsafe: 77  // EX_NOPERM: a link, another user's file, one others may write
        case .cannotOpen: 66  // EX_NOINPUT
        case .noSuchJob: 1
        case .storage: 74  // EX_IOERR: a full disk, a corrupt page
        case .full, .anotherWorker: 75  // EX_TEMPFAIL: try again later
        }
    }
}
