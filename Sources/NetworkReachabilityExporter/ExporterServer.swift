package import Logging
import NIOConcurrencyHelpers
package import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NetworkReachabilityCore
package import Prometheus
import ServiceLifecycle

/// `reach serve`'s HTTP/1 server, on SwiftNIO with one event loop: `/metrics`, `/status`, `/events` and `/`, over
/// TLS and behind basic authentication when the web configuration says so, gzip-compressed when the client asks
/// (but for event streams). It runs as a swift-service-lifecycle service until SIGTERM or SIGINT: then it stops
/// accepting, ends every stream and answer, and returns.
///
/// The event loop is the only thread that touches the served state and the connections, so none of it is locked:
/// each is bound to the loop (`NIOLoopBoundBox`), which checks that every access is made on it.
package final class ExporterServer: Service, Sendable {
    let served: ServedTargets
    /// What the event loop alone touches.
    private final class Confined {
        let connections: ConnectionRegistry
        /// The server's own series: answers, password checks, failed handshakes.
        let series: ServeSeries
        let process: ProcessGauges
        /// The last rendering of `/metrics`: when, at which count of changes shown and readings of the web
        /// configuration, and its text.
        var rendered: (at: NIODeadline, changes: Int, body: ByteBuffer)?

        init(connections: ConnectionRegistry, series: ServeSeries, process: ProcessGauges) {
            self.connections = connections
            self.series = series
            self.process = process
        }
    }
    private let confined: NIOLoopBoundBox<Confined>
    /// The open connections and their bounds. On the event loop.
    var connections: ConnectionRegistry { confined.value.connections }
    /// The server's own series. On the event loop.
    var series: ServeSeries { confined.value.series }
    let limits: ServeLimits
    /// The TLS and users new connections are served with.
    let access: WebAccess
    /// Where each answer is logged (`--verbose`): method, path, status, size and the encodings the client takes.
    let logger: Logger
    private let registry: PrometheusCollectorRegistry
    /// The listening channels and the addresses bound, as ``bind(_:)`` returned: bound from any thread, before
    /// ``run()``.
    private let listening = NIOLockedValueBox<(channels: [any Channel], bound: [ListenAddress])>(([], []))
    /// Called once, from ``run()``, when the server is listening and its service group has trapped its signals.
    private let whenServing: @Sendable ([ListenAddress]) -> Void

    package init(
        served: ServedTargets, limits: ServeLimits, registry: PrometheusCollectorRegistry, access: WebAccess, logger: Logger,
        whenServing: @escaping @Sendable ([ListenAddress]) -> Void
    ) {
        self.whenServing = whenServing
        self.served = served
        self.registry = registry
        self.access = access
        self.logger = logger
        self.limits = limits
        confined = .makeBoxSendingValue(
            Confined(
                connections: ConnectionRegistry(limits: limits, registry: registry),
                series: ServeSeries(registry: registry, metricsPath: limits.metricsPath),
                process: ProcessGauges(registry: registry)),
            eventLoop: served.eventLoop)
        registry.gauge("reach_build_info", labels: BuildInfo.labels, help: BuildInfo.help).set(to: 1)
    }

    /// Binds `address` on the served targets' event loop (the kernel chooses the port for 0), beside those bound
    /// before; ``run()`` tells `whenServing` the addresses bound.
    package func bind(_ address: ListenAddress) async throws {
        let channel = try await ServerBootstrap(group: served.eventLoop)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.socketOption(.so_sndbuf), value: SocketOptionValue(limits.answerSocketBuffer))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try self.configure(channel.pipeline.syncOperations) }
            }
            .bind(host: address.host, port: address.port).get()
        listening.withLockedValue { listening in
            listening.channels.append(channel)
            listening.bound.append(ListenAddress(host: address.host, port: channel.localAddress?.port ?? address.port))
        }
    }

    /// Sets up a new connection's pipeline: the socket's own closer, TLS when the web configuration has it now (with
    /// a 400 for plain HTTP before it, and the client certificate's names checked after it), HTTP/1 with NIO's error
    /// handling and the request head's limits, gzip, and the connection's handler. The web configuration is read
    /// again first when its file, or a file it names, changed.
    package func configure(_ pipeline: ChannelPipeline.SynchronousOperations) throws {
        self.access.reloadIfChanged()
        let access = self.access.now
        try pipeline.addHandler(SocketCloser())
        if let tls = access.tls {
            try pipeline.addHandler(PlainRequestRefusal())
            try pipeline.addHandler(tls.handler())
            if let check = tls.nameCheck() { try pipeline.addHandler(check) }
        }
        try pipeline.configureHTTPServerPipeline(
            withPipeliningAssistance: true, withErrorHandling: true, withOutboundHeaderValidation: true,
            withEncoderConfiguration: .init(), withDecoderLimitConfiguration: ServeLimits.requestHeadLimits)
        try pipeline.addHandler(HTTPResponseCompressor(responseCompressionPredicate: Self.compresses))
        try pipeline.addHandler(ConnectionHandler(server: self))
    }

    /// Whether an answer is gzip-compressed when its client asks: all but an event stream, whose events must leave
    /// as they happen.
    private static func compresses(_ head: inout HTTPResponseHead, _ isSupported: Bool)
        -> HTTPResponseCompressor.CompressionIntent
    {
        head.headers["Content-Type"].first == "text/event-stream" ? .doNotCompress : .compressIfPossible
    }

    /// The Prometheus text of every series, the process's read again first. On the event loop.
    ///
    /// One rendering serves every `/metrics` request for ``renderingLife`` unless a target changed meanwhile: clients
    /// that pipeline scrapes without end then cost a copy each, not a rendering: beside 8 of them, another scrape
    /// takes 0.3 s at the median where it took 1.6 s (a debug build on 2 busy cores,
    /// `ServeFailsClosedInNamespaceTests`). The targets' series and the web configuration's reload series are always
    /// current; the process's and the library's counters may be that much older.
    func metricsExposition() -> ByteBuffer {
        served.refreshQuality()
        let now = served.eventLoop.now
        let changes = served.changesShown &+ access.readCount
        let confined = self.confined.value
        if let rendered = confined.rendered, rendered.changes == changes, now - rendered.at < Self.renderingLife {
            return rendered.body
        }
        confined.process.update()
        let body = ByteBuffer(bytes: ExpositionOrder.sorted(registry.emitToBuffer()))
        // Its life counts from the rendering's end: one that took longer than its life would otherwise serve none
        // of the requests waiting behind it, and each would render again (16 under AddressSanitizer, 1,001 targets).
        confined.rendered = (served.eventLoop.now, changes, body)
        return body
    }

    /// How long one rendering of `/metrics` serves while no target changes: 100 ms.
    static let renderingLife = TimeAmount.milliseconds(100)

    /// Serves until a graceful shutdown (SIGTERM, SIGINT) is asked for, then stops and returns. The service group
    /// trapped those signals before it ran this, so `whenServing` is told here.
    package func run() async throws {
        let bound = listening.withLockedValue { $0.bound }
        if !bound.isEmpty { whenServing(bound) }
        let stopped = served.eventLoop.makePromise(of: Void.self)
        try await withGracefulShutdownHandler {
            try await stopped.futureResult.get()
        } onGracefulShutdown: {
            self.served.eventLoop.execute { self.stop(done: stopped) }
        }
    }

    /// Closes the listening socket, then every connection; `done` succeeds when the last has closed.
    private func stop(done: EventLoopPromise<Void>) {
        let allClosed = served.eventLoop.makePromise(of: Void.self)
        connections.stop(on: served.eventLoop, done: allClosed)
        let channels = listening.withLockedValue { $0.channels }
        let closed = EventLoopFuture.andAllComplete(channels.map { $0.close() }, on: served.eventLoop)
        closed.and(allClosed.futureResult).map { _ in () }.cascade(to: done)
    }
}
