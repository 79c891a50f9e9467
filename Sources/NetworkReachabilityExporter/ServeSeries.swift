import NIOHTTP1
import Prometheus

/// The server's own series, as promhttp and exporter-toolkit give theirs: answers by path and status code, password
/// checks by outcome, and TLS handshakes that failed, by why. Used on the server's event loop.
final class ServeSeries {
    /// Why a TLS connection ended before its first request could be read: a label of
    /// `reach_serve_tls_handshake_failures_total`.
    enum HandshakeFailure: String, CaseIterable, Error {
        /// The handshake failed: no certificate where one is required, one not verified, no shared version or suite,
        /// or a client that hung up or sent something else.
        case handshake
        /// A client certificate named none of `client_allowed_sans`.
        case clientName
        /// Plain HTTP was sent to the TLS port (answered 400).
        case plainHTTP
    }

    /// What a password check found: a label of `reach_serve_password_checks_total`.
    enum CheckOutcome: String, CaseIterable {
        case passed, refused, busy
    }

    private let registry: PrometheusCollectorRegistry
    private let metricsPath: String
    private var answers: [String: Counter] = [:]
    private let checks: [CheckOutcome: Counter]
    private let failures: [HandshakeFailure: Counter]

    init(registry: PrometheusCollectorRegistry, metricsPath: String) {
        self.registry = registry
        self.metricsPath = metricsPath
        checks = registry.counters(
            "reach_serve_password_checks_total", label: "outcome", for: CheckOutcome.allCases,
            help: "Requests whose password was checked: passed, refused (401) or busy (too many waiting: 503).")
        failures = registry.counters(
            "reach_serve_tls_handshake_failures_total", label: "reason", for: HandshakeFailure.allCases,
            help: "TLS connections closed before a request: handshake, clientName (client_allowed_sans) or plainHTTP.")
    }

    /// Counts an answer to `path` with `status`; a path the server does not serve counts as `other`, so that a
    /// scanner cannot make series without end.
    func answered(_ path: String, _ status: HTTPResponseStatus) {
        let served = [metricsPath, "/status", "/events", "/"].contains(path) ? path : "other"
        let key = "\(served) \(status.code)"
        if let counter = answers[key] { return counter.increment() }
        let counter = registry.counter(
            "reach_serve_http_requests_total", labels: [("path", served), ("code", "\(status.code)")],
            help: "Requests answered, by path (other: one not served) and status code.")
        answers[key] = counter
        counter.increment()
    }

    /// Counts a password check's outcome.
    func checked(_ outcome: CheckOutcome) {
        checks[outcome]?.increment()
    }

    /// Counts a TLS connection that ended before a request.
    func failed(_ reason: HandshakeFailure) {
        failures[reason]?.increment()
    }
}
