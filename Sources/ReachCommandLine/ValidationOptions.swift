package import ArgumentParser
import NetworkReachabilityKit
package import NetworkReachabilityValidationCore

/// `--validate URL` and `--validation-timeout SECONDS`, part of every command's ``TargetOptions``.
package struct ValidationOptions: ParsableArguments {
    package init() {}

    @Option(
        name: .customLong("validate"),
        help: "Check the internet for real with an HTTP GET to this URL, which must answer 204 (captive portals, dead uplinks).")
    package var probeURL: String?

    @Option(
        parsing: .unconditional, help: "Seconds one validation probe may take.",
        transform: Seconds.parser(in: Seconds.exchange))
    package var validationTimeout = Seconds(duration: .seconds(5))

    /// The configuration, or `nil` without `--validate`.
    package func configuration() throws(ValidationConfigurationError) -> ValidationConfiguration? {
        guard let probeURL else { return nil }
        return try ValidationConfiguration(probeURL: probeURL, timeout: validationTimeout.duration)
    }

    /// Validation checks the internet as a whole: it goes with the `internet` target only.
    package static let internetOnly = ValidationConfigurationError.invalidConfiguration(
        reason: "--validate needs the internet target")
}
