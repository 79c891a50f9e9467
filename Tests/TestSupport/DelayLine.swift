public import Foundation

/// A link with a round trip of its own between a ``TestNetwork``'s two namespaces, for the link-quality tests: this
/// kernel has no netem, so `DelayLine/delay-line.py` holds each packet between two tun devices (`dqa` in the host,
/// `dqb` in the gateway). The host's default route goes through it; the gateway namespace answers HTTP on
/// ``internetAddress`` (beyond the gateway) and on ``gatewayAddress`` (on the link: a LAN peer).
extension TestNetwork {
    /// The host's address on the delay line.
    public static let delayLineHostIPv4 = "10.99.0.2"
    /// The gateway's address on the delay line: the default route's next hop, and a peer on the link.
    public static let delayLineGatewayIPv4 = "10.99.0.1"
    /// An address beyond the gateway (on the gateway namespace's loopback): flows to it count for the link.
    public static let delayLineInternetIPv4 = "203.0.113.80"
    /// The port of the HTTP server in the gateway namespace: `GET /N` answers N bytes.
    public static let delayLineHTTPPort = 8080

    /// A network whose only route is a delay line (``addDelayLine(oneWay:rateKbps:)``), removed again if it cannot be
    /// built; remove it with ``remove()``.
    public static func delayLine(oneWay: Duration, rateKbps: Int? = nil) throws -> TestNetwork {
        let network = try TestNetwork(ipv4: false, ipv6: false)
        do {
            try network.addDelayLine(oneWay: oneWay, rateKbps: rateKbps)
        } catch {
            network.remove()
            throw error
        }
        return network
    }

    /// Builds the delay line with `oneWay` each way (the round trip is twice it) and makes it the host's default
    /// route; starts the HTTP server. With `rateKbps`, the gateway's side is shaped with tbf (the download direction).
    /// Call on a network made with `TestNetwork(ipv4: false, ipv6: false)`, so no other route competes.
    public func addDelayLine(oneWay: Duration, rateKbps: Int? = nil) throws {
        let milliseconds = Double(oneWay.components.seconds) * 1000 + Double(oneWay.components.attoseconds) / 1e15
        let ready = ExclusivePipe()
        helperPipes.append(ready)
        _ = try start(
            ["/usr/bin/python3", Self.delayLineScript, "dqa", "dqb", gatewayName, String(milliseconds)], output: ready)
        guard String(decoding: ready.readSome(), as: UTF8.self).hasPrefix("ready") else {
            throw CommandError(
                command: ["delay-line.py"], result: CommandResult(status: 1, standardOutput: "", standardError: "no ready"))
        }
        try ip("addr", "add", "\(Self.delayLineHostIPv4)/24", "dev", "dqa")
        try ip("link", "set", "dqa", "up")
        try gatewayIP("addr", "add", "\(Self.delayLineGatewayIPv4)/24", "dev", "dqb")
        try gatewayIP("link", "set", "dqb", "up")
        try gatewayIP("addr", "add", "\(Self.delayLineInternetIPv4)/32", "dev", "lo")
        try ip("route", "add", "default", "via", Self.delayLineGatewayIPv4, "dev", "dqa")
        if let rateKbps {
            // A short queue (6 KB), so the shaping shows in the throughput more than in the round trip.
            try Command.run(
                ["ip", "netns", "exec", gatewayName, "tc", "qdisc", "add", "dev", "dqb", "root", "tbf", "rate",
                 "\(rateKbps)kbit", "burst", "4kb", "limit", "6kb"], check: true)
        }
        let server = """
            import http.server, socketserver
            class Bytes(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    size = int(self.path.strip('/') or 0)
                    self.send_response(200)
                    self.send_header('Content-Length', str(size))
                    self.end_headers()
                    chunk = b'x' * 65536
                    while size > 0:
                        self.wfile.write(chunk[:size])
                        size -= len(chunk)
                def log_message(self, *arguments):
                    pass
            class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
                daemon_threads = True
                allow_reuse_address = True
            server = Server(('0.0.0.0', \(Self.delayLineHTTPPort)), Bytes)
            print('ready', flush=True)
            server.serve_forever()
            """
        let serverReady = ExclusivePipe()
        helperPipes.append(serverReady)
        _ = try start(["/usr/bin/python3", "-c", server], output: serverReady, inGateway: true)
        _ = serverReady.readSome()
    }

    /// Fetches `bytes` bytes from `address` over HTTP from the host namespace, in a process of its own (a client
    /// that is not the process under test), and waits for it to end: the flow has closed when this returns.
    @discardableResult
    public func fetch(_ bytes: Int, from address: String = TestNetwork.delayLineInternetIPv4, timeout: TimeInterval = 60)
        throws -> CommandResult
    {
        let script = """
            import sys, urllib.request
            with urllib.request.urlopen('http://\(address):\(Self.delayLineHTTPPort)/\(bytes)', timeout=\(Int(timeout))) as answer:
                received = len(answer.read())
            sys.exit(0 if received == \(bytes) else 1)
            """
        return try Command.run(["ip", "netns", "exec", name, "/usr/bin/python3", "-c", script], check: true, timeout: timeout)
    }

    private static var delayLineScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("DelayLine/delay-line.py").path
    }
}
