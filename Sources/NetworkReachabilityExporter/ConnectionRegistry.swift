import NIOCore
import Prometheus

/// The open connections of `reach serve`, the bounds on them, and the series that count them. Confined to the
/// server's event loop.
final class ConnectionRegistry: @unchecked Sendable {
    /// Why the server closed a connection, a label of `reach_serve_closed_connections_total`.
    enum CloseReason: String, CaseIterable {
        /// No whole request, or an answer not taken, within the request timeout.
        case timeout
        /// Closed to make room for a new connection, or refused for want of it.
        case limit
        /// An `/events` reader fell more than the stream backlog behind.
        case slowReader
    }

    let limits: ServeLimits
    private var open: [ObjectIdentifier: ConnectionHandler] = [:]
    private var streamCount = 0
    private var isStopping = false
    private var stopped: EventLoopPromise<Void>?
    private let connectionsGauge: Gauge
    private let streamsGauge: Gauge
    private let closed: [CloseReason: Counter]

    init(limits: ServeLimits, registry: PrometheusCollectorRegistry) {
        self.limits = limits
        connectionsGauge = registry.gauge("reach_serve_connections", help: "HTTP connections open now.")
        streamsGauge = registry.gauge("reach_serve_event_streams", help: "/events streams open now.")
        closed = Dictionary(
            uniqueKeysWithValues: CloseReason.allCases.map { reason in
                (
                    reason,
                    registry.counter(
                        "reach_serve_closed_connections_total", labels: [("reason", reason.rawValue)],
                        help: "Connections the server closed: timeout, limit (connection bound) or slowReader (/events).")
                )
            })
    }

    /// Admits a new connection: at the bound, the oldest one not yet answered (waiting for its request, or for its
    /// answer to be taken) is closed to make room; when every one is a stream, or the server is stopping, `false`, and
    /// the caller closes the new one.
    func admit(_ connection: ConnectionHandler) -> Bool {
        guard !isStopping else { return false }
        if open.count >= limits.maxConnections {
            let waiting = open.values.compactMap { handler in handler.unansweredSince.map { (handler, $0) } }
            guard let oldest = waiting.min(by: { $0.1 < $1.1 })?.0 else {
                count(.limit)
                return false
            }
            oldest.close(because: .limit)
        }
        open[ObjectIdentifier(connection)] = connection
        connectionsGauge.set(to: Double(open.count))
        return true
    }

    /// A connection closed.
    func leave(_ connection: ConnectionHandler) {
        guard open.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        connectionsGauge.set(to: Double(open.count))
        if open.isEmpty, isStopping { stopped?.succeed() }
    }

    /// Takes one of the stream places; `false` when all are taken.
    func startStream() -> Bool {
        guard streamCount < limits.maxStreams else { return false }
        streamCount += 1
        streamsGauge.set(to: Double(streamCount))
        return true
    }

    /// Gives a stream place back.
    func endStream() {
        streamCount -= 1
        streamsGauge.set(to: Double(streamCount))
    }

    /// Counts a connection the server closed.
    func count(_ reason: CloseReason) {
        closed[reason]?.increment()
    }

    /// Admits no more connections and asks every open one to end (a stream at once, an answer once written);
    /// `done` succeeds when the last is closed. What has not ended within the request timeout (a stream whose
    /// reader stopped reading cannot take its last chunk) is closed then.
    func stop(on eventLoop: any EventLoop, done: EventLoopPromise<Void>) {
        isStopping = true
        stopped = done
        if open.isEmpty { return done.succeed() }
        for connection in Array(open.values) { connection.end() }
        eventLoop.assumeIsolated().scheduleTask(in: limits.requestTimeout) {
            for connection in Array(self.open.values) { connection.close(because: .timeout) }
        }
    }
}
