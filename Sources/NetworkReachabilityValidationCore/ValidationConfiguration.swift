import FoundationEssentials
import NetworkReachabilityCore

/// Why a validation configuration was refused.
public enum ValidationConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The probe URL is not an absolute `http` or `https` URL with a host; `reason` says what is wrong.
    case invalidProbeURL(String, reason: String)
    /// A number of the configuration cannot work; `reason` says which.
    case invalidConfiguration(reason: String)

    /// One line that says what went wrong.
    public var description: String {
        switch self {
        case .invalidProbeURL(let url, let reason):
            "invalid probe URL '\(url.count > 80 ? url.prefix(77) + "..." : url)': \(reason)"
        case .invalidConfiguration(let reason): "invalid validation configuration: \(reason)"
        }
    }
}

/// Where and how to probe.
///
/// There is no default endpoint: a probe tells its server your address and when your network changes, so
/// choose one you trust (your own, or a public one such as `http://connectivitycheck.gstatic.com/generate_204`).
/// Plain `http` is what captive-portal detection needs (a portal can only redirect what it can read);
/// `https` probes are verified as any TLS request is, and a portal then shows as `limited`.
public struct ValidationConfiguration: Sendable, Hashable {
    /// The endpoint that answers `204 No Content`.
    public let probeURL: String
    /// The longest one probe may take.
    public let timeout: Duration
    /// The most body bytes read from a probe's answer.
    public let bodyLimit: Int
    /// The delay before probing again after the first answer that is not `validated`; it doubles with each
    /// further such answer, up to ``maximumRetryDelay``.
    public let initialRetryDelay: Duration
    /// The longest delay between probes while the network is not validated.
    public let maximumRetryDelay: Duration

    /// Makes a configuration.
    ///
    /// - Throws: ``ValidationConfigurationError/invalidProbeURL(_:reason:)`` for a URL that is not absolute `http`/`https`
    ///   with a host; ``ValidationConfigurationError/invalidConfiguration(reason:)`` for a timeout or delay not above zero, a
    ///   maximum delay below the initial one, or a body limit outside 0...1 MiB.
    public init(
        probeURL: String, timeout: Duration = .seconds(5), bodyLimit: Int = 4096, initialRetryDelay: Duration = .seconds(2),
        maximumRetryDelay: Duration = .seconds(300)
    ) throws(ValidationConfigurationError) {
        guard let url = URL(string: probeURL) else { throw .invalidProbeURL(probeURL, reason: "not a URL") }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidProbeURL(probeURL, reason: "the scheme must be http or https")
        }
        guard let host = url.host, !host.isEmpty else { throw .invalidProbeURL(probeURL, reason: "it has no host") }
        if let port = url.port, !(1...65535).contains(port) {
            throw .invalidProbeURL(probeURL, reason: "port \(port) is not one of 1 to 65535")
        }
        guard timeout > .zero else { throw .invalidConfiguration(reason: "timeout \(timeout) is not above zero") }
        guard (0...1_048_576).contains(bodyLimit) else {
            throw .invalidConfiguration(reason: "bodyLimit \(bodyLimit) is outside 0...1048576")
        }
        guard initialRetryDelay > .zero, maximumRetryDelay >= initialRetryDelay else {
            throw .invalidConfiguration(reason: "retry delays must be above zero, the maximum at least the initial one")
        }
        // Probing never gives up while the network is not validated: the attempts are unbounded.
        guard
            let backoff = try? RetryPolicy(
                maximumAttempts: .max, initialDelay: initialRetryDelay, multiplier: 2, maximumDelay: maximumRetryDelay)
        else { throw .invalidConfiguration(reason: "retry delays \(initialRetryDelay) and \(maximumRetryDelay) cannot work") }
        self.probeURL = probeURL
        self.timeout = timeout
        self.bodyLimit = bodyLimit
        self.initialRetryDelay = initialRetryDelay
        self.maximumRetryDelay = maximumRetryDelay
        self.backoff = backoff
    }

    /// The delays between probes, as a work queue's retries grow.
    private let backoff: RetryPolicy

    /// The delay after `failures` answers in a row that were not `validated` (1 or more).
    public func retryDelay(afterFailures failures: Int) -> Duration {
        backoff.delay(afterFailures: failures)
    }
}
