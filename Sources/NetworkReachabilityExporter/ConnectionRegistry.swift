#if canImport(Glibc)
    import Glibc
#endif
import NIOCore
import Prometheus

/// The open connections of `reach serve`, the bounds on them, and the series that count them. Confined to the
/// server's event loop (the server holds it bound to the loop).
final class ConnectionRegistry {
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
    /// Answers of the metrics path being written now.
    private var scrapes = 0
    /// The streams open per client address.
    private var streamsByPeer: [String: Int] = [:]
    /// When memory was last given back to the system, and whether it will be again.
    private var trimmed = NIODeadline.distantPast
    private var isTrimScheduled = false
    private var isStopping = false
    private var stopped: EventLoopPromise<Void>?
    private let connectionsGauge: Gauge
    private let streamsGauge: Gauge
    private let closed: [CloseReason: Counter]

    init(limits: ServeLimits, registry: PrometheusCollectorRegistry) {
        self.limits = limits
        connectionsGauge = registry.gauge("reach_serve_connections", help: "HTTP connections open now.")
        streamsGauge = registry.gauge("reach_serve_event_streams", help: "/events streams open now.")
        closed = registry.counters(
            "reach_serve_closed_connections_total", label: "reason", for: CloseReason.allCases,
            help: "Connections the server closed: timeout, limit (connection bound) or slowReader (/events).")
    }

    /// Takes a place for an answer of the metrics path; `false` when `--max-requests` are being answered.
    func startScrape() -> Bool {
        guard limits.maxRequests == 0 || scrapes < limits.maxRequests else { return false }
        scrapes += 1
        return true
    }

    /// Gives a scrape's place back.
    func endScrape() {
        scrapes -= 1
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

    /// A connection closed; the memory it freed goes back to the system soon.
    func leave(_ connection: ConnectionHandler, on eventLoop: any EventLoop) {
        guard open.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        trimSoon(on: eventLoop)
        connectionsGauge.set(to: Double(open.count))
        if open.isEmpty, isStopping { stopped?.succeed() }
    }

    /// Takes one of the stream places for a client at `peer` (its address); `false` when all are taken, or the
    /// client holds its share (``ServeLimits/streamsPerPeer``).
    func startStream(from peer: String) -> Bool {
        guard streamCount < limits.maxStreams, streamsByPeer[peer, default: 0] < limits.streamsPerPeer else { return false }
        streamCount += 1
        streamsByPeer[peer, default: 0] += 1
        streamsGauge.set(to: Double(streamCount))
        return true
    }

    /// Gives the stream place of a client at `peer` back.
    func endStream(from peer: String) {
        streamCount -= 1
        streamsByPeer[peer, default: 1] -= 1
        if streamsByPeer[peer] == 0 { streamsByPeer[peer] = nil }
        streamsGauge.set(to: Double(streamCount))
    }

    /// Gives the memory a closed connection freed back to the system, at most once a second and at the latest a
    /// second after the last close: glibc would keep what a stream's backlog or a TLS connection's buffers freed in
    /// its arena, so that many connections dropped (or gone) together would leave the process as large as they made
    /// it (300 `/events` readers gone at once left 53 MiB held, 5 MiB with this).
    private func trimSoon(on eventLoop: any EventLoop) {
        let now = eventLoop.now
        if now - trimmed >= .seconds(1) {
            trimmed = now
            _ = Self.trimHeap?(0)
        } else if !isTrimScheduled {
            isTrimScheduled = true
            // Weak: a loop that never runs the task (an embedded one in tests) must not keep itself and the
            // registry alive through it.
            eventLoop.assumeIsolated().scheduleTask(deadline: trimmed + .seconds(1)) { [weak self, weak eventLoop] in
                guard let self, let eventLoop else { return }
                self.isTrimScheduled = false
                self.trimmed = eventLoop.now
                _ = Self.trimHeap?(0)
            }
        }
    }

    /// glibc's `malloc_trim`, which its module map leaves out (it is in `malloc.h`); `nil` on another C library.
    private static let trimHeap: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
            return nil
        #endif
    }()

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
        eventLoop.assumeIsolated().scheduleTask(in: min(limits.requestTimeout, limits.stopGrace)) {
            for connection in Array(self.open.values) { connection.close(because: .timeout) }
        }
    }
}
