import ArgumentParser
import NetworkReachabilityKit
import NetworkReachabilitySettings
import ReachCommandLine

/// `reach networks`: the network the internet's route is on now, and the networks the settings files name; `reach
/// networks label` names the current network and records its overrides.
struct NetworksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "networks",
        abstract: "Print the current network's identity and the networks the settings files name; label one.",
        discussion: """
            The settings are YAML, in /etc/reach/networks (REACH_NETWORKS names another) and, for a user other than \
            root, $XDG_CONFIG_HOME/reach/networks over it. Exit 78 when a settings file is malformed or could be \
            written by another user.
            """,
        subcommands: [NetworksListCommand.self, NetworksLabelCommand.self],
        defaultSubcommand: NetworksListCommand.self
    )
}

/// `reach networks list`: what `reach networks` prints.
struct NetworksListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Print the current network's identity and the networks the settings files name.")

    @Flag(help: "Print one JSON object instead of lines.")
    var json = false

    @OptionGroup var logging: VerboseOption

    /// `reach networks --json`.
    private struct Listing: Encodable {
        let current: NetworkIdentity?
        let interface: String?
        let isExpensive: Bool
        let known: [KnownNetwork]
        let files: [String]
        let problems: [String]
    }

    func run() throws {
        NetworkSettingsStart.start(logger: logging.logger)
        let reader = NetworkSettingsReader.start()
        let path = try NetworkReachability(target: .internet, logger: logging.logger).currentSnapshot().path
        let known = reader.known
        let files = [NetworkSettingsReader.hostFile] + (NetworkSettingsReader.userFile.map { [$0] } ?? [])
        let problems = reader.problems
        if json {
            Output.line(
                Output.jsonLine(
                    Listing(
                        current: path.network, interface: path.interface?.name, isExpensive: path.isExpensive,
                        known: known, files: files, problems: problems.map(\.description))))
        } else {
            Output.line("current: " + Self.current(path))
            if known.isEmpty {
                Output.line("no network is named in \(files.joined(separator: " or "))")
            } else {
                let rows =
                    [["", "ID", "LABEL", "METERED", "VALIDATE", "FILE"]]
                    + known.map { network in
                        [
                            network.id == path.network?.id ? "*" : "", network.id, network.settings.label ?? "-",
                            network.settings.isMetered.map { $0 ? "yes" : "no" } ?? "-",
                            network.settings.validationURL ?? "-", network.file,
                        ]
                    }
                let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
                for row in rows {
                    Output.line(
                        row.enumerated().map { column, cell in
                            column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
                        }.joined(separator: " "))
                }
            }
        }
        if !problems.isEmpty { throw ExitCode(78) }  // EX_CONFIG: each was said on stderr when read
    }

    /// `home (a3f9c0d1e2b3a4f5) via eth0, from gatewayMAC, not expensive`, or why no network is known.
    private static func current(_ path: ReachabilityPath) -> String {
        guard let interface = path.interface else { return "none: the internet is not reachable" }
        guard let network = path.network else {
            return "unknown on \(interface.name): no gateway, or its MAC address is not resolved yet"
        }
        let name = network.label.map { "\($0) (\(network.id))" } ?? network.id
        let ingredients = network.ingredients.map(\.rawValue).joined(separator: ", ")
        return "\(name) via \(interface.name), from \(ingredients), \(path.isExpensive ? "expensive" : "not expensive")"
    }
}

/// `reach networks label NAME`: names the current network (or `--network ID`) in the settings file, with overrides.
struct NetworksLabelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "label",
        abstract: "Name the current network (or --network ID) in your settings file, with its overrides.",
        discussion: """
            Root writes the host's file (/etc/reach/networks), any other user their own \
            ($XDG_CONFIG_HOME/reach/networks). What the file said of the network and is not given again stays; \
            every other line stays as it was.
            """
    )

    @Argument(help: "The label: 1 to 64 characters, no comma or control character.", transform: NetworksLabelCommand.label)
    var label: String

    @Option(help: "Whether the network is metered whatever its link or NetworkManager says: yes or no.", transform: NetworksLabelCommand.yesOrNo)
    var metered: Bool?

    @Option(help: "The URL a validator probes on this network (--validate), http:// or https://.", transform: NetworksLabelCommand.url)
    var validate: String?

    @Option(help: "The network's id (16 hexadecimal digits, as reach networks prints it) instead of the current one's.", transform: NetworksLabelCommand.networkID)
    var network: String?

    @OptionGroup var logging: VerboseOption

    func run() throws {
        let id: String
        if let network {
            id = network
        } else {
            let path = try NetworkReachability(target: .internet, logger: logging.logger).currentSnapshot().path
            guard let current = path.network?.id else {
                Output.say(
                    path.interface == nil
                        ? "the internet is not reachable, so no network is current; give --network ID"
                        : "the current network is not known (no gateway, or its MAC address is not resolved yet); give --network ID")
                throw ExitCode(69)  // EX_UNAVAILABLE
            }
            id = current
        }
        do throws(NetworkSettingsError) {
            let recorded = try NetworkSettingsReader.record(
                NetworkSettings(label: label, isMetered: metered, validationURL: validate), for: id)
            var said = ["label \(recorded.settings.label ?? "-")"]
            if let metered = recorded.settings.isMetered { said.append("metered \(metered ? "yes" : "no")") }
            if let url = recorded.settings.validationURL { said.append("validate \(url)") }
            Output.line("\(id): \(said.joined(separator: ", ")) (\(recorded.file))")
        } catch {
            Output.say(error.description)
            switch error {
            case .invalidValue: throw ExitCode.validationFailure
            case .malformed, .refused: throw ExitCode(78)  // EX_CONFIG
            case .unwritable: throw ExitCode(73)  // EX_CANTCREAT
            }
        }
    }

    static func label(_ text: String) throws -> String {
        if let problem = NetworkSettingsFile.labelProblem(text) { throw ValidationError(problem) }
        return text
    }

    static func yesOrNo(_ text: String) throws -> Bool {
        switch text.lowercased() {
        case "yes", "true": return true
        case "no", "false": return false
        default: throw ValidationError("'\(text)' is not yes or no")
        }
    }

    static func url(_ text: String) throws -> String {
        if let problem = NetworkSettingsFile.urlProblem(text) { throw ValidationError(problem) }
        return text
    }

    static func networkID(_ text: String) throws -> String {
        guard let id = NetworkSettingsFile.networkID(text) else {
            throw ValidationError("'\(text)' is no network id (16 hexadecimal digits, as reach networks prints it)")
        }
        return id
    }
}
