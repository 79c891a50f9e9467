import ArgumentParser

/// `reach queue`: commands kept in an SQLite file and run when the network allows, for scripts.
struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Keep commands in a file and run them when the network allows, across crashes and reboots.",
        discussion: """
            `add` keeps a command with its conditions; `run` is the worker that runs the commands in order while \
            their conditions hold, at least once each: a command running when the worker dies runs again at its \
            next start. One worker runs a file; any number of processes may add to it.
            """,
        subcommands: [QueueAddCommand.self, QueueRunCommand.self, QueueListCommand.self, QueueRemoveCommand.self]
    )
}
