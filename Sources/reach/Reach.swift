import ArgumentParser
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityExporter
import NetworkReachabilityKit
import NetworkReachabilityValidation
import ReachCommandLine

/// `reach`: whether the network can carry traffic to a target, once or live.
@main
struct Reach: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: "Tell whether the network can carry traffic to a target, and over what kind of link.",
        discussion: """
            TARGET is `internet` (a default or split-default route), `link-local`, an IPv4/IPv6 address \
            (IPv6 may carry a %zone), or a host name. Reachable means a packet sent now can leave this host toward \
            the target.
            """,
        version: NetworkReachability.version,
        subcommands: [
            StatusCommand.self, WatchCommand.self, WaitCommand.self, InterfacesCommand.self, NAT64Command.self,
            SynthesizeCommand.self, NetworksCommand.self, ServeCommand.self, QueueCommand.self,
        ],
        defaultSubcommand: StatusCommand.self
    )

    /// Runs a command; every failure is one line on stderr and a non-zero exit code (64 for bad input).
    static func main() async {
        await CommandMain.run(Self.self) {
            if CommandLine.arguments.dropFirst().first == QueueCommand.configuration.commandName { QueueCommand.forward() }
            try MistypedCommand.check(Self.self)
        } classify: { error in
            switch error {
            case let error as WebConfigurationError: (ExitCode.validationFailure.rawValue, error.description)
            // EX_SOFTWARE, as the kernel's failures: the address is in use or not this host's
            case let error as ServeError: (70, error.description)
            default: nil
            }
        }
    }
}
