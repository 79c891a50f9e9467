import ArgumentParser
import NetworkReachabilityKit
import NetworkReachabilityValidation
import ReachCommandLine

/// `reach wait`: returns as soon as the targets are reachable (the job of `nm-online` and
/// `systemd-networkd-wait-online`, for any target); exit 1 at the timeout, saying what was still missing.
struct WaitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until the targets are reachable (exit 0); exit 1 at the timeout, 64 on bad input.",
        discussion: """
            Nothing is polled: each target is told of every change by the kernel, and the wait ends within a \
            moment of the change that makes it reachable. With --validate, the internet must also answer the \
            probe. In a systemd unit: ExecStartPre=reach wait --timeout 60 api.example.com
            """
    )

    @Argument(help: TargetOptions.targetsHelp)
    var targets: [String] = []

    @OptionGroup var targetOptions: TargetOptions

    @Option(
        parsing: .unconditional, help: "Seconds to wait at most; 0 checks once.", transform: Seconds.parser(in: Seconds.wait))
    var timeout = Seconds(duration: .seconds(30))

    @Flag(help: "Wait until every target is reachable (the default), or until any one is.")
    var mode: Mode = .all

    @Option(
        help: "Also wait until the link is measured at least this good: 4g, 3g, 2g or slow-2g (from the host's TCP flows).",
        transform: WaitCommand.qualityClass)
    var quality: EffectiveConnectionType?

    /// `--quality`'s transform: a class other than `unknown`.
    static func qualityClass(_ text: String) throws -> EffectiveConnectionType {
        guard let type = EffectiveConnectionType(rawValue: text), type != .unknown else {
            throw ValidationError("'\(text)' is no quality; use 4g, 3g, 2g or slow-2g")
        }
        return type
    }

    @Flag(help: "Also wait until the path is not expensive: not cellular, not metered (the network's settings decide first).")
    var unmetered = false

    @Option(help: "Also wait until the path is on this network: a label of the settings file, or a network id.")
    var network: String?

    @OptionGroup var logging: VerboseOption

    func validate() throws { _ = try targetOptions.parse(targets) }

    enum Mode: String, EnumerableFlag {
        case all, any
    }

    func run() async throws {
        let parsed = try targetOptions.parsed(targets)
        let reachabilities = try targetOptions.reachabilities(
            of: parsed, logger: logging.logger, measuringQuality: quality != nil)
        let waits = zip(parsed.arguments, reachabilities).map { argument, reachability in
            TargetWait(
                argument: argument, reachability: reachability, validation: argument.isInternet ? parsed.validation : nil,
                quality: quality, unmetered: unmetered, network: network)
        }
        // What the services say a link is counts for --require and --prohibit (ppp0 carrying a modem's data is cellular)
        NetworkSettingsStart.start(logger: logging.logger)
        RadioDetailsStart.start(verbose: logging.verbose, logger: logging.logger)
        // With --quality, the reader runs for the whole wait: a class is an estimate from the flows seen while it
        // ran, which the last look at the timeout needs as much as the waits do.
        let measuring = quality == nil ? [] : try reachabilities.map { try $0.addConsumer(rule: .status) { _ in } }
        defer { for (reachability, consumer) in zip(reachabilities, measuring) { reachability.removeConsumer(consumer) } }
        let needed = mode == .all ? waits.count : 1
        let deadline = ContinuousClock.now + timeout.duration
        var reached: Set<Int>
        repeat {
            reached = await Self.reached(waits, needed: needed, within: deadline - .now)
        } while reached.count < needed && ContinuousClock.now < deadline
        guard reached.count < needed else { return }
        let missing = waits.indices.filter { !reached.contains($0) }.map { waits[$0].missingDescription() }
        Output.say("still waiting after \(timeout.description) s: " + missing.joined(separator: ", "))
        throw ExitCode(1)
    }

    /// The indices of the targets reached, once `needed` waits have ended reached or the timeout passed. What
    /// counts is the state then (``TargetWait/isReached(waitSaidSo:)``): a target reached early may have gone again
    /// while another was awaited, and at the timeout a target is read once more, so `--timeout 0` is one check.
    private static func reached(_ waits: [TargetWait], needed: Int, within timeout: Duration) async -> Set<Int> {
        let waited = await withTaskGroup(of: Int?.self) { group in
            for (index, wait) in waits.enumerated() {
                group.addTask { await wait.untilReached() ? index : nil }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return -1
            }
            defer { group.cancelAll() }
            var reached = Set<Int>()
            for await index in group {
                if index == -1 { break }  // the timeout
                guard let index else { continue }  // a wait that ended without an answer: the timeout will come
                reached.insert(index)
                if reached.count >= needed { break }
            }
            return reached
        }
        return Set(waits.indices.filter { waits[$0].isReached(waitSaidSo: waited.contains($0)) })
    }
}

/// One target of `reach wait`: reachable (as good, unmetered and on the network asked), and for the internet with
/// `--validate`, validated.
private struct TargetWait: Sendable {
    let argument: TargetArgument
    let reachability: NetworkReachability
    let validation: ValidationConfiguration?
    /// With `--quality`: the worst class of link accepted.
    let quality: EffectiveConnectionType?
    /// With `--unmetered`: an expensive path is not accepted.
    let unmetered: Bool
    /// With `--network`: the label or id of the one network accepted.
    let network: String?

    /// Whether `snapshot` is what the wait asks for, validation aside: the one rule of the waits and the last look.
    func holds(on snapshot: ReachabilitySnapshot) -> Bool {
        guard snapshot.status.isReachable else { return false }
        if let quality, (snapshot.path.quality?.effectiveType ?? .unknown) < quality { return false }
        if unmetered && snapshot.path.isExpensive { return false }
        if let network, snapshot.path.network?.isNamed(network) != true { return false }
        return true
    }

    /// Suspends until the target is reachable (over a link as good as `--quality` asks, unmetered and on the network
    /// asked, and validated, with validation); `false` when cancelled first.
    func untilReached() async -> Bool {
        guard (try? await reachability.waitForSnapshot { [self] in holds(on: $0) }) != nil else { return false }
        guard let validation else { return true }
        guard let validator = try? ConnectivityValidator(reachability: reachability, configuration: validation) else {
            return false
        }
        defer { validator.close() }
        return await validator.updates.first { $0 == .validated } != nil && !Task.isCancelled
    }

    /// Whether the target counts as reached now: without validation, when a read says it is reachable; with it,
    /// when its wait saw it validated (a probe says that, not a read).
    func isReached(waitSaidSo: Bool) -> Bool {
        guard validation == nil else { return waitSaidSo }
        guard quality != nil || unmetered || network != nil else { return reachability.isReachable }
        guard let snapshot = try? reachability.currentSnapshot() else { return false }
        return holds(on: snapshot)
    }

    /// `api.example.com (not reachable: resolution failed)`: the target, its state now and why.
    func missingDescription() -> String {
        guard let snapshot = try? reachability.currentSnapshot() else { return "\(argument.text) (unknown)" }
        let state =
            switch snapshot.status {
            case .unknown: "unknown"
            case .notReachable: "not reachable"
            case .reachable: validation == nil ? "reachable" : "not validated"
            }
        let measured = quality == nil ? "" : ", \(snapshot.path.quality?.summary ?? "quality unknown")"
        let cost = unmetered && snapshot.path.isExpensive ? ", expensive" : ""
        let place = network == nil ? "" : ", on network \(snapshot.path.network?.summary ?? "unknown")"
        return "\(argument.text) (\(state)\(snapshot.path.reason.map { ": \($0)" } ?? "")\(measured)\(cost)\(place))"
    }
}
