import AsyncHTTPClient
import Glibc
import NIOCore
import NIOPosix

/// Probes with AsyncHTTPClient: no redirect followed, a new connection per probe (a kept-alive one may belong
/// to the network before the change), the body read up to the limit, TLS verified as usual.
///
/// Call ``shutdown()`` when done with a prober you made; a ``ConnectivityValidator`` shuts down the one it
/// makes for itself.
public final class HTTPConnectivityProber: ConnectivityProbing {
    private let client: HTTPClient

    /// Makes a prober on `eventLoopGroup` (NIO's shared group unless you pass one).
    public init(eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.maximumUsesPerConnection = 1
        client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
    }

    /// Sends one `GET` to `url` and reads at most `bodyLimit` bytes of the answer, all within `timeout`.
    public func fetch(_ url: String, accept: String?, timeout: Duration, bodyLimit: Int) async -> ProbeResponse {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: "swift-network-reachability")
        request.headers.add(name: "Cache-Control", value: "no-cache")
        request.headers.add(name: "Connection", value: "close")
        if let accept { request.headers.add(name: "Accept", value: accept) }
        let (seconds, attoseconds) = timeout.components
        let deadline = NIODeadline.now() + .seconds(seconds) + .nanoseconds(attoseconds / 1_000_000_000)
        do {
            let response = try await client.execute(request, deadline: deadline)
            var body: [UInt8] = []
            for try await buffer in response.body {
                body += buffer.readableBytesView.prefix(bodyLimit - body.count)
                if body.count >= bodyLimit { break }  // the rest is not read; the connection closes
            }
            return .http(status: Int(response.status.code), location: response.headers.first(name: "location"), body: body)
        } catch {
            return .failed(Self.reason(error))
        }
    }

    /// Closes the client's connections. Probes after this fail.
    public func shutdown() async throws {
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
