import NIOCore

/// The first handler of every connection's pipeline, next to the socket: a close asked of its context reaches the
/// socket without passing TLS. A connection the server drops (to make room at the bound, or past its deadline) is
/// closed through it at once; through TLS its close would wait up to 5 s for a close_notify from a peer that may
/// never read (swift-nio-ssl's `shutdownTimeout`), still open and still counted.
final class SocketCloser: ChannelOutboundHandler {
    typealias OutboundIn = NIOAny

    /// Closes the socket of the connection whose pipeline holds `context`, below its TLS.
    static func close(_ context: ChannelHandlerContext) {
        let socket = try? context.pipeline.syncOperations.context(handlerType: SocketCloser.self)
        (socket ?? context).close(promise: nil)
    }
}
