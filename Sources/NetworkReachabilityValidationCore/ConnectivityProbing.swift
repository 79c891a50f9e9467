/// What one probe request got back.
public enum ProbeResponse: Sendable, Hashable {
    /// An HTTP response: its status code, its `Location` header, and the start of its body, no longer than the
    /// limit the request gave.
    case http(status: Int, location: String?, body: [UInt8])
    /// No HTTP response; the words say why: timed out, connection refused, host not resolved, TLS failed.
    case failed(String)
}

/// Sends one bounded HTTP `GET`: redirects are not followed, the body is read up to a limit, and the whole
/// request ends within a timeout.
///
/// `NetworkReachabilityValidation`'s `HTTPConnectivityProber` does it with AsyncHTTPClient;
/// `NetworkReachabilityTesting`'s simulated network answers from what a test set.
public protocol ConnectivityProbing: Sendable {
    /// Fetches `url`.
    ///
    /// - Parameters:
    ///   - url: an `http` or `https` URL.
    ///   - accept: the `Accept` header, if any.
    ///   - timeout: the longest the request may take, from start to the last byte read.
    ///   - bodyLimit: the most body bytes to read; the rest is not downloaded.
    func fetch(_ url: String, accept: String?, timeout: Duration, bodyLimit: Int) async -> ProbeResponse
}
