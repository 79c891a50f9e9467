#if canImport(Glibc)
    import Glibc
#endif
import NetworkReachabilityCore

/// `--listen ADDR:PORT`: an IPv4 address and a port, or an IPv6 address in brackets and a port (`[::1]:9464`);
/// `:PORT` for every address.
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

    /// Why a `--listen` value is refused.
    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
    }

    /// Parses `ADDR:PORT` strictly, and the two forms node_exporter's `--web.listen-address` takes beside it:
    /// `:PORT` is every address of both families (`[::]`, which takes IPv4 too, as Go listens for `:9100`), and
    /// `localhost:PORT` is `127.0.0.1`, as Go listens on the first address `localhost` resolves to.
    package init(parsing text: String) throws(Refusal) {
        let example = "as 127.0.0.1:9464, [::1]:9464, 0.0.0.0:9464 or :9464 (every address)"
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw Refusal(description: "an address in brackets is followed by :PORT, \(example)")
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
            guard let address = try? IPAddress(String(host)), address.family == .ipv6 else {
                throw Refusal(description: "in brackets, an IPv6 address: [::1]:9464")
            }
            // A zone names an interface (or its index): one that does not exist is the user's mistake, found before
            // the bind would fail.
            if let zone = address.zone, !Self.namesAnInterface(zone) {
                throw Refusal(description: ReachabilityError.unknownZone(zone).description)
            }
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw Refusal(description: "no :PORT; write it \(example)") }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            guard host.isEmpty || host == "localhost" || (try? IPAddress(String(host)))?.family == .ipv4 else {
                if (try? IPAddress(String(text)))?.family == .ipv6 || host.contains(":") {
                    throw Refusal(description: "an IPv6 address is written in brackets: [::1]:9464")
                }
                throw Refusal(description: "not an address (a host name is not resolved here); write it \(example)")
            }
        }
        // Digits only: `Int` alone would take `+80`.
        guard (1...5).contains(port.count), port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port),
            (0...65535).contains(number)
        else { throw Refusal(description: "the port must be a number from 0 to 65535") }
        self.host = host.isEmpty ? "::" : host == "localhost" ? "127.0.0.1" : String(host)
        self.port = number
    }

    /// Whether `zone` is the name or the index of an interface of this host, as a target's zone must be.
    private static func namesAnInterface(_ zone: String) -> Bool {
        if let index = UInt32(zone) {
            var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE))
            return index > 0 && if_indextoname(index, &name) != nil
        }
        return if_nametoindex(zone) != 0
    }

    /// Whether only this host can reach it: `127.0.0.0/8`, `::1`, or `127.0.0.0/8` mapped into IPv6.
    package var isLoopback: Bool {
        host.hasPrefix("127.") || host == "::1" || host.lowercased().hasPrefix("::ffff:127.")
    }

    /// `127.0.0.1:9464` or `[::1]:9464`.
    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
