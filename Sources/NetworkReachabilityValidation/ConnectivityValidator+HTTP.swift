@_exported public import AsyncHTTPClient
public import Logging
@_exported import NetworkReachabilityKit
@_exported import NetworkReachabilityValidationCore

extension ConnectivityValidator {
    /// Starts validating with AsyncHTTPClient.
    ///
    /// ```swift
    /// let validator = try ConnectivityValidator(
    ///     configuration: ValidationConfiguration(probeURL: "http://connectivitycheck.example.com/generate_204"),
    ///     httpClient: .shared, logger: logger)
    /// ```
    ///
    /// - Parameters:
    ///   - reachability: what must be reachable before a probe is sent; the internet unless you pass another.
    ///   - configuration: the probe URL, timeouts and retry delays.
    ///   - httpClient: your client (such as `HTTPClient.shared`), which the validator never shuts down; without one
    ///     it makes a client of its own (no redirects followed, one request per connection), shut down on close.
    ///   - logger: where each probe's outcome (debug) and its requests (AsyncHTTPClient's own log) go; nothing is
    ///     logged unless you pass a logger.
    /// - Throws: the kernel subscription's error when it cannot be opened.
    public convenience init(
        reachability: NetworkReachability = NetworkReachability(), configuration: ValidationConfiguration,
        httpClient: HTTPClient? = nil, logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        let prober: HTTPConnectivityProber
        var closing: (@Sendable () async -> Void)?
        if let httpClient {
            prober = HTTPConnectivityProber(httpClient: httpClient, logger: logger)
        } else {
            prober = HTTPConnectivityProber(logger: logger)
            closing = { _ = try? await prober.shutdown() }
        }
        try self.init(
            reachability: reachability, configuration: configuration, prober: prober, logger: logger, closing: closing)
    }
}
