import ArgumentParser
import Logging
import NetworkReachabilityKit
import NetworkReachabilityValidation
import ReachCommandLine

/// How a command's targets are read: the resolution timeout, the interface types and validation. `status`,
/// `watch`, `wait` and `serve` share it; each command takes its targets itself (`status` one, the others several,
/// ``targetsHelp``) and checks them whole with these options in its `validate()`, before it starts: one bad target or
/// option, and nothing is watched, printed or served.
struct TargetOptions: ParsableArguments {
    /// The help of the commands that read several targets.
    static let targetsHelp = ArgumentHelp(
        "Targets: internet (default), link-local, IPv4/IPv6 addresses, host names or URLs.")

    @Option(
        parsing: .unconditional, help: "Seconds a host name's resolution may take before it counts as timed out.",
        transform: Seconds.parser(in: Seconds.resolution))
    var resolutionTimeout: Seconds = .standardResolution

    @OptionGroup var validation: ValidationOptions

    @OptionGroup var interfaces: InterfaceOptions

    /// What the options say, parsed.
    struct Parsed {
        /// The targets as given (`internet` when none is), restricted as `--require` and `--prohibit` say.
        let arguments: [TargetArgument]
        /// `--validate`'s configuration, or `nil` without it.
        let validation: ValidationConfiguration?

        /// The target the probes check: the first internet target, with `--validate`.
        var validated: Int? { validation == nil ? nil : arguments.firstIndex(where: \.isInternet) }
    }

    /// Parses `targets` (with `status`'s `--from`, an address pair) and the validation options: a bad one is one
    /// line and exit 64, as any bad option (``CommandFailure/validating(_:)``).
    func parse(_ targets: [String], from local: String? = nil) throws -> Parsed {
        try CommandFailure.validating {
            let arguments = try (targets.isEmpty ? ["internet"] : targets).map { (text) throws(ReachabilityError) in
                interfaces.restrict(try TargetArgument(text, from: local))
            }
            let configuration = try validation.configuration()
            if configuration != nil && !arguments.contains(where: \.isInternet) { throw ValidationOptions.internetOnly }
            return Parsed(arguments: arguments, validation: configuration)
        }
    }

    /// The options as a command's `validate()` parsed them; a URL target is said on stderr here, once.
    func parsed(_ targets: [String], from local: String? = nil) throws -> Parsed {
        let parsed = try parse(targets, from: local)
        for argument in parsed.arguments {
            if let notice = argument.urlNotice { Output.say("\(notice)") }
        }
        return parsed
    }

    /// A monitor of each target, reading with the resolution timeout, measuring link quality when `measuringQuality`.
    func reachabilities(
        of parsed: Parsed, logger: Logger, measuringQuality: Bool = false
    ) throws(ReachabilityError) -> [NetworkReachability] {
        try parsed.arguments.map { (argument) throws(ReachabilityError) in
            let reachability = try NetworkReachability(
                target: argument.target, resolutionTimeout: resolutionTimeout.duration, logger: logger)
            reachability.measuresQuality = measuringQuality
            return reachability
        }
    }

    /// The help of `--quality` where it is a flag (`status`, `watch`, `serve`).
    static let qualityHelp = ArgumentHelp(
        "Measure how good the link is from the host's TCP flows: effective type (4g, 3g, 2g, slow-2g), RTT, throughput.")
}
