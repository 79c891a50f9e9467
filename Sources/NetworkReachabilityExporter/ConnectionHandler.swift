import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// One HTTP connection of `reach serve`: routes each request to `/metrics`, `/status`, `/events` or the landing page
/// `/`, answers the rest 404 or 405, and keeps the connection within the server's limits. Runs on the server's event
/// loop.
///
/// A connection is waiting (for a request), answering, or streaming events. A request is answered as soon as its
/// head has arrived: no endpoint takes a body, so one that announces a body is answered 400 and closed at once,
/// never waited for. One deadline covers waiting and answering: the request head and its answer must be done within
/// the request timeout of the connection's opening or of its previous answer's end. A connection has one answer in
/// flight, as Go's net/http serves one: a pipelined request is answered once the answer before it is in the socket,
/// so a client that pipelines without reading holds one answer's memory and at most one of `--max-requests`. A stream
/// has no deadline; its reader is dropped when it falls too far behind.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case waiting(since: NIODeadline)
        case answering(since: NIODeadline)
        case streaming
        case ending
        case closed
    }

    private let server: ExporterServer
    private var state = State.waiting(since: .distantPast)  // set when the connection becomes active
    private var deadline: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    /// Whether this connection holds one of the stream places and hears changes.
    private var isSubscribed = false
    /// The client's address, which stream places are counted by.
    private var peer = ""
    /// The stream's comment line while nothing changes.
    private var heartbeat: Scheduled<Void>?
    /// Changes not yet written to a stream whose reader is behind: the newest of each target, by its index.
    private var pendingEvents: [Int: String] = [:]
    /// Drops a reader that stays behind for the request timeout.
    private var behind: Scheduled<Void>?
    /// Whether events were written to the stream and a flush is asked for on the loop's next turn.
    private var isFlushDue = false
    /// Whether an answer of the metrics path is being written, which counts against `--max-requests`.
    private var holdsScrape = false
    /// Whether an answer's end was handed to the channel and is not yet in the socket.
    private var isWriting = false
    /// A pipelined request that arrived while the answer before it was being written: answered once it is.
    private var nextRequest: HTTPRequestHead?
    /// Whether the server is stopping: the answer being given is the connection's last.
    private var closesAfterAnswer = false

    init(server: ExporterServer) {
        self.server = server
    }

    /// Since when the connection has waited for its request or its answer to be taken: the one of these that is
    /// oldest makes room for a new connection at the bound. `nil` for a stream or a connection that is ending.
    var unansweredSince: NIODeadline? {
        switch state {
        case .waiting(let since), .answering(let since): since
        case .streaming, .ending, .closed: nil
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.context = context
        state = .waiting(since: context.eventLoop.now)  // on the loop's clock, as every connection's, before admission
        guard server.connections.admit(self) else {
            state = .closed
            context.close(promise: nil)
            return
        }
        wait(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        heartbeat?.cancel()
        behind?.cancel()
        pendingEvents = [:]
        endScrape()
        if isSubscribed {
            server.served.unsubscribe(ObjectIdentifier(self))
            server.connections.endStream(from: peer)
        }
        state = .closed
        server.connections.leave(self, on: context.eventLoop)
        self.context = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Answered on its head: a body is never waited for (one that is announced is refused in `answer`).
        guard case .head(let head) = unwrapInboundIn(data), case .waiting(let since) = state else { return }
        state = .answering(since: since)
        // NIO hands a pipelined request over as soon as the last answer's end is handed on, not once it is in the
        // socket: it waits for that here, so answers of a client that does not read never pile up in the channel.
        guard !isWriting else {
            nextRequest = head
            return
        }
        answerOnNextTurn(head, context: context)
    }

    /// Answers on the loop's next turn, not now: answering at once would answer a pipelining connection's whole
    /// backlog in one turn while the others wait. Deferred, each connection gets one answer a turn, and a new one's
    /// first request is not behind another's.
    private func answerOnNextTurn(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        context.eventLoop.assumeIsolated().execute {
            guard case .answering = self.state, self.context != nil else { return }
            self.answer(head, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let failure = error as? ServeSeries.HandshakeFailure {
            server.series.failed(failure)
        } else if let tls = error as? NIOSSLError, case .handshakeFailed = tls {
            server.series.failed(.handshake)
        }
        context.close(promise: nil)  // a reset or a malformed request (answered 400 by NIO's error handler)
    }

    /// Closes the connection's socket at once (``SocketCloser``), counting why: it counts against the bound until
    /// then, and is no longer one to make room with.
    func close(because reason: ConnectionRegistry.CloseReason) {
        guard let context else { return }
        switch state {
        case .ending, .closed: break
        case .waiting, .answering, .streaming: state = .ending
        }
        server.connections.count(reason)
        SocketCloser.close(context)
    }

    /// Ends the connection for the server's stop, as Go's `Shutdown` ends its own: a stream with its last chunk, a
    /// request that arrived answered (with `Connection: close`) and an answer being written finished before the
    /// connection closes, an idle connection at once. The registry closes what is left after its stop grace.
    func end() {
        guard let context else { return }
        switch state {
        case .streaming:
            state = .ending
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        case .waiting where isWriting, .answering: closesAfterAnswer = true
        case .waiting: context.close(promise: nil)
        case .ending, .closed: break
        }
    }

    // MARK: - Answers

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard head.method == .GET || head.method == .HEAD else {
            return send(
                .methodNotAllowed, text: "method not allowed: only GET and HEAD\n", extra: [("Allow", "GET, HEAD")], to: head,
                closing: Self.announcesBody(head), context: context)
        }
        guard !Self.announcesBody(head) else {
            return send(.badRequest, text: "a GET or HEAD carries no body\n", to: head, closing: true, context: context)
        }
        // The configuration of now, read again if its file changed, not of the connection's opening: a password
        // revoked in the file stops at once, also on a connection kept alive from before.
        server.access.reloadIfChanged()
        let access = server.access.now
        if let limit = access.rateLimit, !limit.admits() {
            return send(.tooManyRequests, text: "too many requests\n", to: head, context: context)
        }
        guard let authentication = access.authentication, !access.unauthenticatedPaths.contains(Self.path(of: head)) else {
            return route(head, context: context)
        }
        authentication.check(head, on: context.eventLoop).assumeIsolated().whenSuccess { verdict in
            guard case .answering = self.state, self.context != nil else { return }  // closed meanwhile
            switch verdict {
            case .passed:
                self.server.series.checked(.passed)
                self.route(head, context: context)
            case .refused:
                self.server.series.checked(.refused)
                self.send(
                    .unauthorized, text: "unauthorized\n", extra: [("WWW-Authenticate", #"Basic realm="reach serve""#)],
                    to: head, context: context)
            case .busy:
                self.server.series.checked(.busy)
                self.send(
                    .serviceUnavailable, text: "too many passwords are being checked: try again\n",
                    extra: [("Retry-After", "1")], to: head, context: context)
            }
        }
    }

    /// Answers a GET or HEAD that may be answered.
    private func route(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let limits = server.limits
        switch Self.path(of: head) {
        case "/":
            send(.ok, text: Self.landingPage(limits.metricsPath), type: "text/html; charset=utf-8", to: head, context: context)
        case limits.metricsPath:
            guard server.connections.startScrape() else {
                return send(
                    .serviceUnavailable, text: "too many scrapes at once: try again\n", extra: [("Retry-After", "1")],
                    to: head, context: context)
            }
            holdsScrape = true
            send(
                .ok, body: server.metricsExposition(), type: "text/plain; version=0.0.4; charset=utf-8", to: head,
                context: context)
        case "/status":
            send(.ok, text: server.served.statusArray() + "\n", type: "application/json", to: head, context: context)
        case "/events" where head.method == .GET:
            stream(to: head, context: context)
        case "/events":
            send(.ok, text: "", type: "text/event-stream", to: head, context: context)
        default:
            send(
                .notFound, text: "not found: \(limits.metricsPath), /status and /events are served\n", to: head,
                context: context)
        }
    }

    /// The path a request asks for, without its query.
    private static func path(of head: HTTPRequestHead) -> String {
        String(head.uri.prefix { $0 != "?" && $0 != "#" })
    }

    /// Whether a request says a body follows (`Content-Length` above 0, or any `Transfer-Encoding`).
    private static func announcesBody(_ head: HTTPRequestHead) -> Bool {
        head.headers.contains(name: "Transfer-Encoding")
            || head.headers["Content-Length"].contains { length in length.contains { $0.isNumber && $0 != "0" } }
    }

    private func send(
        _ status: HTTPResponseStatus, text: String, type: String = "text/plain; charset=utf-8", extra: [(String, String)] = [],
        to request: HTTPRequestHead, closing: Bool = false, context: ChannelHandlerContext
    ) {
        send(
            status, body: context.channel.allocator.buffer(string: text), type: type, extra: extra, to: request,
            closing: closing, context: context)
    }

    private func send(
        _ status: HTTPResponseStatus, body: ByteBuffer, type: String, extra: [(String, String)] = [],
        to request: HTTPRequestHead, closing: Bool = false, context: ChannelHandlerContext
    ) {
        let keepAlive = request.isKeepAlive && !closing && !closesAfterAnswer
        server.series.answered(Self.path(of: request), status)
        server.logger.debug(
            "\(request.method) \(request.uri.prefix(100)) \(status.code), \(body.readableBytes) bytes, accept-encoding: \(request.headers["Accept-Encoding"].first?.prefix(60) ?? "none")"
        )
        var headers = HTTPHeaders(
            [("Content-Type", type), ("Content-Length", "\(body.readableBytes)")] + extra + server.access.now.headers)
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        if request.method != .HEAD { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        // Waiting for the next request from the end on, not from its being written: NIO hands a pipelined request
        // over as the end passes, and an answer the client does not take is then closed at the request timeout.
        let stays = keepAlive && { if case .answering = state { true } else { false } }()
        if stays { wait(context: context) }
        isWriting = true
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { result in
            self.isWriting = false
            self.endScrape()
            guard case .success = result, stays, !self.closesAfterAnswer else { return context.close(promise: nil) }
            if let next = self.nextRequest {
                self.nextRequest = nil
                self.answerOnNextTurn(next, context: context)
            }
        }
    }

    /// Gives back the place of a scrape whose answer was written, or whose connection ended.
    private func endScrape() {
        guard holdsScrape else { return }
        holdsScrape = false
        server.connections.endScrape()
    }

    /// Waits for the next request, within the request timeout.
    private func wait(context: ChannelHandlerContext) {
        state = .waiting(since: context.eventLoop.now)
        deadline?.cancel()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: server.limits.requestTimeout) {
            switch self.state {
            case .waiting, .answering: self.close(because: .timeout)
            case .streaming, .ending, .closed: break
            }
        }
    }

    /// What `/` shows a person who opens the exporter in a browser, as node_exporter's does.
    static func landingPage(_ metricsPath: String) -> String {
        """
        <!DOCTYPE html>
        <html><head><title>reach serve</title></head>
        <body><h1>reach serve</h1>
        <p>Whether the network can carry this host's traffic, per target.</p>
        <ul><li><a href="\(metricsPath)">\(metricsPath)</a>: Prometheus' text format</li>
        <li><a href="/status">/status</a>: each target's state as JSON</li>
        <li><a href="/events">/events</a>: server-sent events, one per change</li></ul>
        </body></html>

        """
    }

    // MARK: - Event streams

    /// Answers `/events`: the current state of every target, then one event per change, each `data: JSON`, and a
    /// comment line (`:`) every ``ServeLimits/streamHeartbeat`` while nothing changes.
    private func stream(to request: HTTPRequestHead, context: ChannelHandlerContext) {
        peer = context.channel.remoteAddress?.ipAddress ?? ""
        guard server.connections.startStream(from: peer) else {
            return send(
                .serviceUnavailable, text: "too many event streams\n", extra: [("Retry-After", "10")], to: request,
                context: context)
        }
        deadline?.cancel()
        state = .streaming
        isSubscribed = true
        server.series.answered(Self.path(of: request), .ok)
        let limits = server.limits
        if let options = context.channel.syncOptions {
            try? options.setOption(
                .writeBufferWaterMark, value: .init(low: limits.streamBacklog / 2, high: limits.streamBacklog))
            try? options.setOption(.socketOption(.so_sndbuf), value: SocketOptionValue(limits.streamSocketBuffer))
        }
        let headers = HTTPHeaders(
            [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")] + server.access.now.headers)
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: .ok, headers: headers))), promise: nil)
        let current = server.served.subscribe(ObjectIdentifier(self)) { [weak self] target, record in
            self?.send(event: record, ofTarget: target)
        }
        for record in current { context.write(wrapOutboundOut(.body(.byteBuffer(Self.event(record, context)))), promise: nil) }
        context.flush()
        beat(context: context)
    }

    /// Sends the stream's comment line after ``ServeLimits/streamHeartbeat``, and again after each (none while its
    /// reader is behind: it has something to read).
    private func beat(context: ChannelHandlerContext) {
        heartbeat = context.eventLoop.assumeIsolated().scheduleTask(in: server.limits.streamHeartbeat) {
            guard case .streaming = self.state else { return }
            if context.channel.isWritable {
                context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: ":\n\n")))), promise: nil)
            }
            self.beat(context: context)
        }
    }

    /// Sends one change of target `index`. While the reader is behind (more than the stream backlog waits to be
    /// sent), the change waits instead, replacing the target's change not yet written: a stream holds at most one
    /// change a target beyond its backlog, whatever the routes do. A reader behind for the request timeout is dropped.
    private func send(event record: String, ofTarget index: Int) {
        guard case .streaming = state, let context else { return }
        guard context.channel.isWritable else {
            pendingEvents[index] = record
            if behind == nil {
                behind = context.eventLoop.assumeIsolated().scheduleTask(in: server.limits.requestTimeout) {
                    self.close(because: .slowReader)
                }
            }
            return
        }
        context.write(wrapOutboundOut(.body(.byteBuffer(Self.event(record, context)))), promise: nil)
        // One flush for every event of this loop turn: a turn's step hands each stream many events.
        guard !isFlushDue else { return }
        isFlushDue = true
        context.eventLoop.assumeIsolated().execute {
            self.isFlushDue = false
            if case .streaming = self.state { context.flush() }
        }
    }

    /// A reader that caught up gets the changes that waited, in the targets' order.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if case .streaming = state, context.channel.isWritable {
            behind?.cancel()
            behind = nil
            let waiting = pendingEvents.sorted { $0.key < $1.key }
            pendingEvents = [:]
            for (_, record) in waiting {
                context.write(wrapOutboundOut(.body(.byteBuffer(Self.event(record, context)))), promise: nil)
            }
            context.flush()
        }
        context.fireChannelWritabilityChanged()
    }

    private static func event(_ record: String, _ context: ChannelHandlerContext) -> ByteBuffer {
        context.channel.allocator.buffer(string: "data: \(record)\n\n")
    }
}
