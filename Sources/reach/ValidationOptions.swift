import ArgumentParser
import NetworkReachabilityKit
import NetworkReachabilityValidation

/// `--validate URL` and `--validation-timeout SECONDS`, part of every command's ``TargetOptions``.
struct ValidationOptions: ParsableArguments {
    @Option(
        name: .customLong("validate"),
        help: "Check the internet for real with an HTTP GET to this URL, which must answer 204 (captive portals, dead uplinks).")
    var probeURL: String?

    @Option(
        parsing: .unconditional, help: "Seconds one validation probe may take.",
        transform: Seconds.parser(in: Seconds.exchange))
    var validationTimeout = Seconds(duration: .seconds(5))

    /// The configuration, or `nil` without `--validate`.
    func configuration() throws(ValidationConfigurationError) -> ValidationConfiguration? {
        guard let probeURL else { return nil }
        return try ValidationConfiguration(probeURL: probeURL, timeout: validationTimeout.duration)
    }

    /// Validation checks the internet as a whole: it goes with the `internet` target only.
    static let internetOnly = ValidationConfigurationError.invalidConfiguration(reason: "--validate needs the internet target")
}
