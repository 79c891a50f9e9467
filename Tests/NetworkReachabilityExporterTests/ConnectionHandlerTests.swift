import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NetworkReachabilityCore
import NetworkReachabilityTesting
import Prometheus
import Testing

@testable import NetworkReachabilityExporter

/// `reach serve`'s connection handler in process, on NIO's `EmbeddedChannel`: the exact bytes each request gets, the
/// bounds a connection is held to, and the time it may take, with the event loop's clock moved by hand.
struct ConnectionHandlerTests {
    /// A server of one target, the internet of a simulated network with a default route, shown once; on one
    /// embedded event loop that every connection of a test shares.
    private final class Server {
        let loop = EmbeddedEventLoop()
        let registry = PrometheusCollectorRegistry()
        let served: ServedTargets
        let server: ExporterServer

        init(limits: ServeLimits = ServeLimits()) throws {
            let network = SimulatedNetwork()
            try network.addInterface("eth0")
            try network.addAddress("192.0.2.10/24", to: "eth0")
            try network.addDefaultRoute(via: "192.0.2.1")
            served = ServedTargets([("internet", false)], registry: registry, eventLoop: loop)
            served.receive(try NetworkReachability(network: network).currentSnapshot(), forTarget: 0)
            loop.run()
            server = ExporterServer(
                served: served, limits: limits, registry: registry, access: try WebAccess(path: nil),
                logger: NetworkReachability.silentLogger
            ) { _ in }
        }

        /// A connected client's channel from `peer`, its pipeline as the server makes it.
        func connect(from peer: String = "127.0.0.1") throws -> EmbeddedChannel {
            let channel = EmbeddedChannel(loop: loop)
            try server.configure(channel.pipeline.syncOperations)
            channel.remoteAddress = try SocketAddress(ipAddress: peer, port: 40000)
            try channel.connect(to: SocketAddress(ipAddress: peer, port: 40000)).wait()
            return channel
        }
    }

    /// Sends `request` (if any) and returns every byte written back since the last exchange.
    private func exchange(_ channel: EmbeddedChannel, _ request: String = "") throws -> String {
        if !request.isEmpty { try channel.writeInbound(ByteBuffer(string: request)) }
        // Each answer is written on a turn of its own, which may hand the next pipelined request over: turns until
        // one writes nothing
        var answer = ""
        var wrote = true
        while wrote {
            channel.embeddedEventLoop.run()
            wrote = false
            while let part = try channel.readOutbound(as: IOData.self) {
                guard case .byteBuffer(let buffer) = part else { continue }
                answer += String(buffer: buffer)
                wrote = true
            }
        }
        return answer
    }

    @Test func eachEndpointAnswersWithTheServedStateAndTheRestIs404Or405() throws {
        let server = try Server()
        let channel = try server.connect()
        let metrics = try exchange(channel, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(metrics.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(metrics.contains(#"reach_target_reachable{target="internet"} 1"#))
        #expect(metrics.contains("# HELP reach_target_reachable "))
        let status = try exchange(channel, "GET /status HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(status.hasPrefix("HTTP/1.1 200 OK\r\n") && status.contains("application/json"))
        #expect(status.contains(#"[{"#) && status.contains(#""target":"internet""#) && status.contains(#""status":"reachable""#))
        let head = try exchange(channel, "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.hasSuffix("\r\n\r\n"))  // the head only
        #expect(try exchange(channel, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n").hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        let post = try exchange(channel, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        #expect(post.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n") && post.contains("Allow: GET, HEAD\r\n"))
        #expect(channel.isActive)
        _ = try channel.finish()
    }

    @Test func pipelinedRequestsAreAnsweredInTheirOrder() throws {
        let server = try Server()
        let channel = try server.connect()
        let answers = try exchange(
            channel,
            "GET /nope HTTP/1.1\r\nHost: x\r\n\r\nGET /status HTTP/1.1\r\nHost: x\r\n\r\nGET /gone HTTP/1.1\r\nHost: x\r\n\r\n")
        let statuses = answers.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
        #expect(statuses == ["404", "200", "404"])
        _ = try channel.finish()
    }

    /// As Go's `Shutdown`: a request that arrived before the stop is answered, and told the connection closes; an
    /// idle connection closes at once.
    @Test func aStopAnswersARequestThatArrivedAndClosesIdleConnections() throws {
        let server = try Server()
        let asking = try server.connect()
        let idle = try server.connect()
        try asking.writeInbound(ByteBuffer(string: "GET /status HTTP/1.1\r\nHost: x\r\n\r\n"))  // answered on the next turn
        server.server.connections.stop(on: server.loop, done: server.loop.makePromise())
        #expect(!idle.isActive)
        let answer = try exchange(asking)
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n") && answer.contains("Connection: close\r\n"), "\(answer)")
        #expect(!asking.isActive)
    }

    @Test func aRequestThatAnnouncesABodyIsAnswered400AndClosedWithoutWaitingForIt() throws {
        let server = try Server()
        let channel = try server.connect()
        let answer = try exchange(channel, "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(!channel.isActive)  // closed on the head: not one byte of the body was waited for
    }

    @Test func atTheBoundANewConnectionClosesTheOldestNotYetAnswered() throws {
        var limits = ServeLimits()
        limits.maxConnections = 2
        let server = try Server(limits: limits)
        let oldest = try server.connect()
        server.loop.advanceTime(by: .seconds(1))
        let answered = try server.connect()
        #expect(try exchange(answered, "GET /status HTTP/1.1\r\nHost: x\r\n\r\n").hasPrefix("HTTP/1.1 200"))
        server.loop.advanceTime(by: .seconds(1))
        let newest = try server.connect()
        #expect(!oldest.isActive)
        #expect(answered.isActive && newest.isActive)
        #expect(try exchange(newest, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").contains(#"reason="limit"} 1"#))
        _ = try answered.finish()
        _ = try newest.finish()
    }

    @Test func aConnectionThatSendsNoWholeHeadWithinTheRequestTimeoutIsClosed() throws {
        var limits = ServeLimits()
        limits.requestTimeout = .seconds(10)
        let server = try Server(limits: limits)
        let silent = try server.connect()
        try silent.writeInbound(ByteBuffer(string: "GET /metrics HTTP/1.1\r\nHost"))  // half a head
        server.loop.advanceTime(by: .milliseconds(9_999))
        #expect(silent.isActive)
        server.loop.advanceTime(by: .milliseconds(1))
        #expect(!silent.isActive)
        let witness = try server.connect()
        #expect(try exchange(witness, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").contains(#"reason="timeout"} 1"#))
        _ = try witness.finish()
    }

    @Test func oneClientHoldsAQuarterOfTheStreamsAndAQuietStreamHearsAHeartbeat() throws {
        var limits = ServeLimits()
        limits.maxStreams = 32
        let server = try Server(limits: limits)
        let events = "GET /events HTTP/1.1\r\nHost: x\r\n\r\n"
        let mine = try (0..<8).map { _ in try server.connect(from: "192.0.2.7") }
        for stream in mine { #expect(try exchange(stream, events).hasPrefix("HTTP/1.1 200 OK\r\n")) }
        let ninth = try server.connect(from: "192.0.2.7")
        let refused = try exchange(ninth, events)
        #expect(refused.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n") && refused.contains("Retry-After: 10\r\n"))
        let other = try server.connect(from: "192.0.2.8")
        #expect(try exchange(other, events).hasPrefix("HTTP/1.1 200 OK\r\n"))

        // While nothing changes, a comment line every 20 s, and nothing before
        func heartbeats(_ channel: EmbeddedChannel) throws -> Int { try exchange(channel).components(separatedBy: "\r\n:\n\n\r\n").count - 1 }
        server.loop.advanceTime(by: .milliseconds(19_999))
        #expect(try exchange(other) == "")
        server.loop.advanceTime(by: .milliseconds(1))
        #expect(try heartbeats(other) == 1)
        server.loop.advanceTime(by: .seconds(20))
        #expect(try heartbeats(mine[0]) == 2)
        // A stream that ends gives its client's place back
        _ = try mine[1].finish()
        let again = try server.connect(from: "192.0.2.7")
        #expect(try exchange(again, events).hasPrefix("HTTP/1.1 200 OK\r\n"))
        for channel in mine + [ninth, other, again] where channel.isActive { _ = try channel.finish() }
    }
}
