import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NetworkReachability
import Prometheus
import ServiceLifecycle

/// `reach serve`'s HTTP/1 server, on SwiftNIO with one event loop: `/metrics`, `/status`, `/events` and `/`, over
/// TLS and behind basic authentication when the web configuration says so, gzip-compressed when the client asks
/// (but for event streams). It runs as a swift-service-lifecycle service until SIGTERM or SIGINT: then it stops
/// accepting, ends every stream and answer, and returns.
///
/// The event loop is the only thread that touches the served state and the connections, so none of it is locked.
final class ExporterServer: Service, @unchecked Sendable {
    let served: ServedTargets
    let connections: ConnectionRegistry
    /// The TLS and users new connections are served with.
    let access: WebAccess
    /// Where each answer is logged (`--verbose`): method, path, status, size and the encodings the client takes.
    let logger: Logger
    private let registry: PrometheusCollectorRegistry
    private let process: ProcessGauges
    private var channel: (any Channel)?

    init(
        served: ServedTargets, limits: ServeLimits, registry: PrometheusCollectorRegistry, access: WebAccess, logger: Logger
    ) {
        self.served = served
        self.registry = registry
        self.access = access
        self.logger = logger
        connections = ConnectionRegistry(limits: limits, registry: registry)
        process = ProcessGauges(registry: registry)
        registry.gauge(
            "reach_build_info", labels: [("version", NetworkReachability.version)],
            help: "The reach that serves these series, by version; always 1."
        ).set(to: 1)
    }

    /// Binds `address` on the served targets' event loop; returns the address bound (with the kernel's port for 0).
    func bind(_ address: ListenAddress) async throws -> ListenAddress {
        let channel = try await ServerBootstrap(group: served.eventLoop)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let access = self.access.now
                    let pipeline = channel.pipeline.syncOperations
                    if let tls = access.tls { try pipeline.addHandler(tls.handler()) }
                    try pipeline.configureHTTPServerPipeline(
                        withPipeliningAssistance: true, withErrorHandling: true, withOutboundHeaderValidation: true,
                        withEncoderConfiguration: .init(), withDecoderLimitConfiguration: ServeLimits.requestHeadLimits)
                    try pipeline.addHandler(HTTPResponseCompressor(responseCompressionPredicate: Self.compresses))
                    try pipeline.addHandler(ConnectionHandler(server: self, authentication: access.authentication))
                }
            }
            .bind(host: address.host, port: address.port).get()
        self.channel = channel
        return ListenAddress(host: address.host, port: channel.localAddress?.port ?? address.port)
    }

    /// Whether an answer is gzip-compressed when its client asks: all but an event stream, whose events must leave
    /// as they happen.
    private static func compresses(_ head: inout HTTPResponseHead, _ isSupported: Bool)
        -> HTTPResponseCompressor.CompressionIntent
    {
        head.headers["Content-Type"].first == "text/event-stream" ? .doNotCompress : .compressIfPossible
    }

    /// The Prometheus text of every series, the process's read again first. On the event loop.
    func metricsExposition() -> ByteBuffer {
        process.update()
        return ByteBuffer(bytes: registry.emitToBuffer())
    }

    /// Serves until a graceful shutdown (SIGTERM, SIGINT) is asked for, then stops and returns.
    func run() async throws {
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
        let listening = channel?.close().recover { _ in } ?? served.eventLoop.makeSucceededVoidFuture()
        listening.and(allClosed.futureResult).map { _ in () }.cascade(to: done)
    }
}
