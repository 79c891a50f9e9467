import ArgumentParser
import NetworkReachability

/// `reach status`: prints the current state once; exit 0 when reachable, 1 when not.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print the current state of a target once (exit 0 reachable, 1 not reachable, 64 bad input)."
    )

    @Argument(help: "internet (default), link-local, or an IPv4/IPv6 address.")
    var target: String = "internet"

    @Option(name: .customLong("from"), help: "Local address to send from (the target must be an address).")
    var local: String?

    @Flag(help: "Print one JSON object instead of a line of text.")
    var json = false

    func run() throws {
        let argument = try TargetArgument(target, from: local)
        let reachability = try NetworkReachability(target: argument.target)
        let snapshot = try reachability.currentSnapshot()
        SnapshotPrinter(json: json).print(snapshot, as: argument.text)
        if !snapshot.status.isReachable { throw ExitCode(1) }
    }
}
