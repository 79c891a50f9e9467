import NIOCore

/// Before TLS, on a port that serves only TLS: when a connection's first byte is not a TLS handshake record's (22) but
/// a letter, a client sent plain HTTP; it is answered 400 with a sentence, as Go's servers answer, and closed, where
/// the TLS handshake would fail without a word. Otherwise it takes itself out of the pipeline and passes the bytes on.
final class PlainRequestRefusal: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let answer = """
        HTTP/1.1 400 Bad Request\r
        Content-Type: text/plain; charset=utf-8\r
        Connection: close\r
        Content-Length: 48\r
        \r
        Client sent an HTTP request to an HTTPS server.

        """

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        guard let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) else { return }
        guard (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) else {
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: Self.answer))).assumeIsolated()
            .whenComplete { _ in
                context.fireErrorCaught(ServeSeries.HandshakeFailure.plainHTTP)  // counted
                SocketCloser.close(context)
            }
    }
}
