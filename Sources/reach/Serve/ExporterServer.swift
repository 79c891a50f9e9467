import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle

/// `reach serve`'s HTTP/1 server, on SwiftNIO with one event loop: `/metrics`, `/status` and `/events`. It runs as
/// a swift-service-lifecycle service until SIGTERM or SIGINT: then it stops accepting, ends every stream and answer,
/// and returns.
///
/// The event loop is the only thread that touches the served state and the connections, so none of it is locked.
final class ExporterServer: Service, @unchecked Sendable {
    let served: ServedTargets
    let connections: ConnectionRegistry
    private let registry: PrometheusCollectorRegistry
    private let process: ProcessGauges
    private var channel: (any Channel)?

    init(served: ServedTargets, limits: ServeLimits, registry: PrometheusCollectorRegistry) {
        self.served = served
        self.registry = registry
        connections = ConnectionRegistry(limits: limits, registry: registry)
        process = ProcessGauges(registry: registry)
    }

    /// Binds `address` on the served targets' event loop; returns the address bound (with the kernel's port for 0).
    func bind(_ address: ListenAddress) async throws -> ListenAddress {
        let channel = try await ServerBootstrap(group: served.eventLoop)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withPipeliningAssistance: true, withErrorHandling: true, withOutboundHeaderValidation: true,
                        withEncoderConfiguration: .init(), withDecoderLimitConfiguration: ServeLimits.requestHeadLimits)
                    try channel.pipeline.syncOperations.addHandler(ConnectionHandler(server: self))
                }
            }
            .bind(host: address.host, port: address.port).get()
        self.channel = channel
        return ListenAddress(host: address.host, port: channel.localAddress?.port ?? address.port)
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
