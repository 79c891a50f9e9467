import ArgumentParser
import Dispatch
import Glibc
import NetworkReachability

/// `reach watch`: prints each target's state, then one line per change, until SIGINT or SIGTERM.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each target's state, then a line whenever its flags or path change, until interrupted."
    )

    @Argument(help: "Targets: internet (default), link-local, or IPv4/IPv6 addresses.")
    var targets: [String] = []

    @Flag(help: "Print one JSON object per line.")
    var json = false

    func run() async throws {
        // Every target is checked before anything is printed: one bad one, and nothing starts.
        let arguments = try (targets.isEmpty ? ["internet"] : targets).map { (text) throws(ReachabilityError) in
            try TargetArgument(text)
        }
        let watched = try arguments.map { (argument) throws(ReachabilityError) in
            (argument, try NetworkReachability(target: argument.target))
        }
        let stop = Self.exitOnSignals()
        let printer = SnapshotPrinter(json: json)
        await withTaskGroup(of: Void.self) { group in
            for (argument, reachability) in watched {
                group.addTask {
                    for await snapshot in reachability.updates {
                        printer.print(snapshot, as: argument.text)
                    }
                }
            }
        }
        withExtendedLifetime(stop) {}
    }

    /// Exits 0 on SIGINT or SIGTERM (every line was already written whole).
    private static func exitOnSignals() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { @Sendable in Glibc.exit(0) }
            source.resume()
            return source
        }
    }
}
