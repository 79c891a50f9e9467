import NetworkReachabilityCore

/// `--listen ADDR:PORT`: an IPv4 address and a port, or an IPv6 address in brackets and a port (`[::1]:9464`).
/// Port 0 asks the kernel for a free port; the address `reach serve` really listens on is printed on stderr.
package struct ListenAddress: Sendable, CustomStringConvertible {
    /// Loopback only, on the port node_exporter's neighbours leave free for this kind of exporter.
    package static let standard = ListenAddress(host: "127.0.0.1", port: 9464)

    package let host: String
    package let port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `ADDR:PORT` strictly; `nil` for anything else.
    package init?(argument: String) {
        let host: Substring
        let port: Substring
        if argument.hasPrefix("[") {
            guard let close = argument.firstIndex(of: "]") else { return nil }
            let rest = argument[argument.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            host = argument[argument.index(after: argument.startIndex)..<close]
            port = rest.dropFirst()
            guard (try? IPAddress(String(host)))?.family == .ipv6 else { return nil }
        } else {
            guard let colon = argument.lastIndex(of: ":") else { return nil }
            host = argument[..<colon]
            port = argument[argument.index(after: colon)...]
            guard (try? IPAddress(String(host)))?.family == .ipv4 else { return nil }
        }
        // Digits only: `Int` alone would take `+80`.
        guard (1...5).contains(port.count), port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port),
            (0...65535).contains(number)
        else { return nil }
        self.host = String(host)
        self.port = number
    }

    /// Whether only this host can reach it: `127.0.0.0/8`, `::1`, or `127.0.0.0/8` mapped into IPv6.
    package var isLoopback: Bool {
        host.hasPrefix("127.") || host == "::1" || host.lowercased().hasPrefix("::ffff:127.")
    }

    /// `127.0.0.1:9464` or `[::1]:9464`.
    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
