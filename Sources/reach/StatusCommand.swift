import ArgumentParser
import NetworkReachabilityKit
import NetworkReachabilityValidation
import ReachCommandLine

/// `reach status`: prints the current state once; exit 0 when reachable, 1 when not.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print the current state of a target once (exit 0 reachable, 1 not reachable, 64 bad input)."
    )

    @Argument(help: "The target: internet (default), link-local, an IPv4/IPv6 address, a host name or a URL.")
    var target: String?

    @OptionGroup var targetOptions: TargetOptions

    @Option(name: .customLong("from"), help: "Local address to send from (the target must be an address).")
    var local: String?

    @Flag(help: "Print one JSON object instead of a line of text.")
    var json = false

    @Flag(help: TargetOptions.qualityHelp)
    var quality = false

    @OptionGroup var logging: VerboseOption

    private var targets: [String] { target.map { [$0] } ?? [] }

    func validate() throws { _ = try targetOptions.parse(targets, from: local) }

    func run() async throws {
        let parsed = try targetOptions.parsed(targets, from: local)
        let argument = parsed.arguments[0]
        let configuration = parsed.validation
        let reachability = try targetOptions.reachabilities(
            of: parsed, logger: logging.logger, measuringQuality: quality)[0]
        NetworkSettingsStart.start(logger: logging.logger)
        RadioDetailsStart.start(verbose: logging.verbose, logger: logging.logger)
        var snapshot = try reachability.currentSnapshot()
        if snapshot.status == .unknown {
            // A host's first resolution, or the first NAT64 discovery for an IPv4 address on an IPv6-only
            // network, is still running; each has its own timeout, which bounds this wait.
            snapshot = await reachability.updates.first { $0.status != .unknown } ?? snapshot
        }
        var outcome: ValidationOutcome?
        if let configuration {
            outcome = .notChecked  // no probe is sent while the internet is not reachable
            if snapshot.status.isReachable {
                outcome = try await Self.firstValidation(of: reachability, configuration)
            }
        }
        SnapshotPrinter(json: json).print(snapshot, as: argument.text, validation: outcome)
        if !snapshot.status.isReachable { throw ExitCode(1) }
    }

    /// The first answer of a probe; `notChecked` if none comes within two probe timeouts (the probe and a
    /// portal's API), which happens only when the internet went away meanwhile, so nothing was sent.
    private static func firstValidation(
        of reachability: NetworkReachability, _ configuration: ValidationConfiguration
    ) async throws -> ValidationOutcome {
        let validator = try ConnectivityValidator(reachability: reachability, configuration: configuration)
        defer { validator.close() }
        let updates = validator.updates
        return await withTaskGroup(of: ValidationOutcome.self) { group in
            group.addTask { await updates.first { $0 != .notChecked } ?? .notChecked }
            group.addTask {
                try? await Task.sleep(for: configuration.timeout * 2 + .seconds(1))
                return .notChecked
            }
            defer { group.cancelAll() }
            return await group.next() ?? .notChecked
        }
    }
}
