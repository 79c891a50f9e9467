public import AsyncHTTPClient
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
public import Logging
public import NIOCore
import NIOHTTP1
public import NIOPosix
import NetworkReachabilityPOSIX

/// Probes with AsyncHTTPClient: no redirect followed, a new connection per probe (a kept-alive one may belong
/// to the network before the change: each request says `Connection: close`), the body read up to the limit, TLS
/// verified as usual.
///
/// Call ``shutdown()`` when done with a prober that made its own client; a `ConnectivityValidator` shuts down
/// the one it makes for itself, and never a client you passed.
public final class HTTPConnectivityProber: ConnectivityProbing {
    private let client: HTTPClient
    /// Whether the client is this prober's own, which ``shutdown()`` closes.
    private let ownsClient: Bool
    private let logger: Logger

    /// Makes a prober with a client of its own on `eventLoopGroup` (NIO's shared group unless you pass one).
    public init(
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = NetworkReachability.silentLogger
    ) {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.maximumUsesPerConnection = 1
        client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
        ownsClient = true
        self.logger = logger
    }

    /// Makes a prober that sends through your client, such as `HTTPClient.shared`, and never shuts it down.
    ///
    /// A client that follows redirects still tells a captive portal: the first redirect of the response's history
    /// is the probe's answer, with its `Location`.
    public init(httpClient: HTTPClient, logger: Logger = NetworkReachability.silentLogger) {
        client = httpClient
        ownsClient = false
        self.logger = logger
    }

    /// Sends one `GET` to `url` and reads at most `bodyLimit` bytes of the answer, all within `timeout`.
    public func fetch(_ url: String, accept: String?, timeout: Duration, bodyLimit: Int) async -> ProbeResponse {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: "swift-network-reachability")
        request.headers.add(name: "Cache-Control", value: "no-cache")
        request.headers.add(name: "Connection", value: "close")
        if let accept { request.headers.add(name: "Accept", value: accept) }
        let deadline = NIODeadline.now() + .nanoseconds(timeout.saturatingNanoseconds)
        do {
            let response = try await client.execute(request, deadline: deadline, logger: logger)
            if response.history.count > 1, let redirect = response.history.first?.responseHead,
                (300..<400).contains(redirect.status.code)
            {
                return .http(status: Int(redirect.status.code), location: redirect.headers.first(name: "location"), body: [])
            }
            // AsyncHTTPClient's deadline ends with the response head; the body gets what is left of it here.
            guard let body = try await Self.read(response.body, upTo: bodyLimit, before: deadline) else {
                return .failed("timed out")
            }
            return .http(status: Int(response.status.code), location: response.headers.first(name: "location"), body: body)
        } catch {
            return .failed(Self.reason(error))
        }
    }

    /// At most `limit` bytes of `body`; `nil` when the deadline passes first (a page that never ends).
    private static func read(
        _ body: HTTPClientResponse.Body, upTo limit: Int, before deadline: NIODeadline
    ) async throws -> [UInt8]? {
        try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
            group.addTask {
                var bytes: [UInt8] = []
                for try await buffer in body {
                    bytes += buffer.readableBytesView.prefix(limit - bytes.count)
                    if bytes.count >= limit { break }  // the rest is not read; the connection closes
                }
                return bytes
            }
            group.addTask {
                let remaining = max(0, (deadline - .now()).nanoseconds)
                try await Task.sleep(nanoseconds: UInt64(remaining))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// Closes the client's connections when the client is this prober's own (probes after this fail); a client you
    /// passed is left as it is.
    public func shutdown() async throws {
        guard ownsClient else { return }
        try await client.shutdown()
    }

    /// A short reason for a failed request, in the words `limited` uses.
    static func reason(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            let timeouts: [HTTPClientError] = [.deadlineExceeded, .connectTimeout, .readTimeout, .getConnectionFromPoolTimeout]
            return timeouts.contains(error) ? "timed out" : "\(error)"
        }
        if let error = error as? NIOConnectionError {
            if error.connectionErrors.isEmpty && (error.dnsAError != nil || error.dnsAAAAError != nil) {
                return "probe host not resolved"
            }
            if let first = error.connectionErrors.first { return reason(first.error) }
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED: return "connection refused"
            case ENETUNREACH, EHOSTUNREACH: return "network unreachable"
            case ETIMEDOUT: return "timed out"
            default: break
            }
        }
        if error is CancellationError { return "cancelled" }
        return "\(error)"
    }
}
