/// The name servers of the resolver configuration (`/etc/resolv.conf`), the second sign of an IPv6-only network.
public struct ResolverConfiguration: Sendable, Hashable {
    /// The `nameserver` addresses, in file order.
    public var nameServers: [IPAddress]

    /// Parses resolv.conf text: `nameserver ADDRESS` lines; comments, other options and bad addresses are skipped.
    public init(parsing text: String) {
        nameServers = text.split(whereSeparator: \.isNewline).compactMap { line in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, words[0] == "nameserver" else { return nil }
            return try? IPAddress(String(words[1]))
        }
    }

    /// Reads `/etc/resolv.conf`; no servers when it cannot be read.
    public static func current() -> ResolverConfiguration {
        ResolverConfiguration(parsing: SystemCall.readSmallFile("/etc/resolv.conf", limit: 65536) ?? "")
    }

    /// Whether there are name servers and all of them are IPv6.
    public var isIPv6Only: Bool { !nameServers.isEmpty && nameServers.allSatisfy { $0.family == .ipv6 } }
}
