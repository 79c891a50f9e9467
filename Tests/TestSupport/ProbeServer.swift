import Foundation

/// A connectivity-check endpoint in the gateway namespace (Python's `http.server`), whose answer the test
/// switches: `GET /generate_204` answers by the current ``Mode``; `/login` is a log-in page; `/api` is an
/// RFC 8908 captive-portal API naming `/login`. It counts the probes it receives.
///
/// Stopped with the network (``TestNetwork/remove()``); ``remove()`` deletes its files, and `deinit` calls it.
public final class ProbeServer: @unchecked Sendable {
    /// What `GET /generate_204` answers.
    public enum Mode: String, Sendable {
        /// `204 No Content`.
        case noContent = "204"
        /// `302 Found` to `/login`.
        case redirect = "302"
        /// `200 OK` with a log-in page.
        case portalPage = "200"
        /// Nothing: the request is read and never answered.
        case dropped = "drop"
        /// A `200 OK` whose page starts and never ends.
        case stalledPage = "stall"
    }

    /// The URL that answers by the mode.
    public let probeURL: String
    /// The URL of the log-in page.
    public let loginURL: String
    /// The URL of the captive-portal API.
    public let apiURL: String
    private let directory: String
    private let pipe = ExclusivePipe()

    /// Starts the server on `address`:`port` in the gateway namespace of `network`, answering `204` at first.
    public init(in network: TestNetwork, address: String = TestNetwork.gatewayIPv4, port: Int = 8080) throws {
        let host = address.contains(":") ? "[\(address)]" : address
        probeURL = "http://\(host):\(port)/generate_204"
        loginURL = "http://\(host):\(port)/login"
        apiURL = "http://\(host):\(port)/api"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(network.name)-probe").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            try set(.noContent)
            try "0".write(toFile: "\(directory)/count", atomically: true, encoding: .utf8)
            let script = Self.script(directory: directory, loginURL: loginURL)
            _ = try network.start(
                ["/usr/bin/python3", "-c", script, String(port), address], output: pipe, inGateway: true)
            let ready = String(decoding: pipe.readSome(), as: UTF8.self)
            guard ready.hasPrefix("ready") else {
                throw CommandError(
                    command: ["probe server"], result: CommandResult(status: 1, standardOutput: ready, standardError: ""))
            }
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    /// Switches what the next probes get.
    public func set(_ mode: Mode) throws {
        let staging = "\(directory)/.mode"
        try mode.rawValue.write(toFile: staging, atomically: false, encoding: .utf8)
        _ = rename(staging, "\(directory)/mode")
    }

    /// How many probes (`GET /generate_204`) arrived so far.
    public var probeCount: Int {
        (try? TestFile.text("\(directory)/count")).flatMap { Int($0) } ?? 0
    }

    /// Deletes the server's files (the process ends with the network).
    public func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func script(directory: String, loginURL: String) -> String {
        """
        import http.server, json, os, socket, sys, threading, time
        port, address, directory = int(sys.argv[1]), sys.argv[2], '\(directory)'
        lock = threading.Lock()
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'
            def log_message(self, *args): pass
            def reply(self, status, headers=(), body=b''):
                self.send_response(status)
                for name, value in headers: self.send_header(name, value)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def do_GET(self):
                if self.path.startswith('/login'):
                    return self.reply(200, [('Content-Type', 'text/html')], b'<html>log in here</html>')
                if self.path.startswith('/api'):
                    body = json.dumps({'captive': True, 'user-portal-url': '\(loginURL)'}).encode()
                    return self.reply(200, [('Content-Type', 'application/captive+json')], body)
                with lock:
                    count = int(open(os.path.join(directory, 'count')).read()) + 1
                    open(os.path.join(directory, '.count'), 'w').write(str(count))
                    os.replace(os.path.join(directory, '.count'), os.path.join(directory, 'count'))
                mode = open(os.path.join(directory, 'mode')).read().strip()
                if mode == '204': self.reply(204)
                elif mode == '302': self.reply(302, [('Location', '/login')])
                elif mode == '200': self.reply(200, [('Content-Type', 'text/html')], b'<html>Welcome! Please log in.</html>')
                elif mode == 'stall':
                    self.send_response(200)
                    self.send_header('Content-Length', '100000')
                    self.end_headers()
                    self.wfile.write(b'<html>')
                    self.wfile.flush()
                    time.sleep(3600)
                else: time.sleep(3600)
        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True
            address_family = socket.AF_INET6 if ':' in address else socket.AF_INET
        server = Server((address, port), Handler)
        print('ready', flush=True)
        server.serve_forever()
        """
    }
}
