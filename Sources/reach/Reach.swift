import ArgumentParser
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityExporter
import NetworkReachabilityKit
import NetworkReachabilityQueue
import NetworkReachabilityValidation

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
        Output.takeStandardDescriptors()
        do {
            if let word = CommandLine.arguments.dropFirst().first, let meant = subcommand(oneEditFrom: word) {
                throw ValidationError("unknown command '\(word)'; did you mean '\(meant)'?")
            }
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            fail(withOneLine: error)
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

    private static func fail(withOneLine error: any Error) -> Never {
        let code: Int32
        let message: String
        switch error {
        case let error as ReachabilityError:
            code = error.isBadInput ? ExitCode.validationFailure.rawValue : 70  // EX_SOFTWARE: the kernel failed us
            message = error.description
        case let error as ValidationConfigurationError:
            code = ExitCode.validationFailure.rawValue
            message = error.description
        case let error as WebConfigurationError:
            code = ExitCode.validationFailure.rawValue
            message = error.description
        case let error as QueueError:
            code = error.exitCode
            message = error.description
        case let error as ServeError:
            code = 70  // EX_SOFTWARE, as the kernel's failures: the address is in use or not this host's
            message = error.description
        default:
            code = exitCode(for: error).rawValue
            if code == 0 {
                Output.line(fullMessage(for: error))  // --help, --version
                Output.endProcess(0)
            }
            message = Self.message(for: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        }
        if !message.isEmpty {
            Output.error("reach: \(shortened(message))")
        }
        Output.endProcess(code)
    }

    /// `message` with each quoted value longer than 80 characters cut to 77 and `...`: a 10 KB bad value is not
    /// echoed whole.
    static func shortened(_ message: String) -> String {
        var result = ""
        var rest = message[...]
        while let open = rest.firstIndex(of: "'"), let close = rest[rest.index(after: open)...].firstIndex(of: "'") {
            let quoted = rest[rest.index(after: open)..<close]
            result += rest[...open] + (quoted.count > 80 ? quoted.prefix(77) + "..." : quoted) + "'"
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        // A value with quotes of its own is not one quoted run: the line itself stays short.
        return result.count > 240 ? result.prefix(237) + "..." : result
    }
}

extension ReachabilityError {
    /// Whether the error is the user's input rather than the system's failure.
    var isBadInput: Bool {
        switch self {
        case .invalidAddress, .invalidHostName, .invalidURL, .invalidNAT64Prefix, .unknownZone, .localAddressNotOwned,
            .familyMismatch, .invalidResolutionTimeout, .invalidTimeout, .invalidRetryPolicy:
            true
        case .systemCallFailed, .malformedKernelReply, .networkNamespaceDeleted, .timedOut: false
        }
    }
}

extension QueueError {
    /// `reach queue`'s exit status for the error, as sysexits(3) names them.
    var exitCode: Int32 {
        switch self {
        case .invalidJob: 64  // EX_USAGE
        case .notADatabase: 65  // EX_DATAERR: the file is not a queue; it was left as it is
        case .cannotOpen: 66  // EX_NOINPUT
        case .noSuchJob: 1
        case .storage: 74  // EX_IOERR: a full disk, a corrupt page
        case .full, .anotherWorker: 75  // EX_TEMPFAIL: try again later
        }
    }
}
