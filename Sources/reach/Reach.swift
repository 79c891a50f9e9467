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
            SynthesizeCommand.self, ServeCommand.self, QueueCommand.self,
        ],
        defaultSubcommand: StatusCommand.self
    )

    /// Runs a command; every failure is one line on stderr and a non-zero exit code (64 for bad input).
    static func main() async {
        await CommandMain.run(Self.self) {
            if CommandLine.arguments.dropFirst().first == QueueCommand.configuration.commandName { QueueCommand.forward() }
            if let word = CommandLine.arguments.dropFirst().first, let meant = subcommand(oneEditFrom: word) {
                throw ValidationError("unknown command '\(word)'; did you mean '\(meant)'?")
            }
        } classify: { error in
            switch error {
            case let error as WebConfigurationError: (ExitCode.validationFailure.rawValue, error.description)
            // EX_SOFTWARE, as the kernel's failures: the address is in use or not this host's
            case let error as ServeError: (70, error.description)
            default: nil
            }
        }
    }

    /// The subcommand `word` is one typing mistake away from (one letter added, dropped or changed, or two
    /// neighbours swapped), when `word` is none itself: `reach wach` is a mistyped command, not a host lookup.
    static func subcommand(oneEditFrom word: String) -> String? {
        let names = configuration.subcommands.compactMap { $0.configuration.commandName }
        guard !names.contains(word) else { return nil }
        return names.first { isOneEdit(Array(word), Array($0)) || isOneSwap(Array(word), Array($0)) }
    }

    private static func isOneSwap(_ typed: [Character], _ name: [Character]) -> Bool {
        guard typed.count == name.count else { return false }
        let differing = typed.indices.filter { typed[$0] != name[$0] }
        guard differing.count == 2, differing[1] == differing[0] + 1 else { return false }
        return typed[differing[0]] == name[differing[1]] && typed[differing[1]] == name[differing[0]]
    }

    private static func isOneEdit(_ typed: [Character], _ name: [Character]) -> Bool {
        guard abs(typed.count - name.count) <= 1 else { return false }
        var (i, j, edits) = (0, 0, 0)
        while i < typed.count && j < name.count {
            if typed[i] == name[j] {
                (i, j) = (i + 1, j + 1)
                continue
            }
            edits += 1
            if edits > 1 { return false }
            if typed.count > name.count {
                i += 1
            } else if typed.count < name.count {
                j += 1
            } else {
                (i, j) = (i + 1, j + 1)
            }
        }
        return edits + (typed.count - i) + (name.count - j) == 1
    }
}
