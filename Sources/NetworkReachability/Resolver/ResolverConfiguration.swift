#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

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

    /// Whether `/etc/resolv.conf` names a server: read again only when the file's identity or modification time
    /// changed since the last call (one `stat`), as the internet's evaluation asks it on every change.
    static func hasNameServers() -> Bool {
        var status = stat()
        guard stat("/etc/resolv.conf", &status) == 0 else { return false }
        let identity = [
            UInt64(status.st_dev), UInt64(status.st_ino), UInt64(status.st_size), UInt64(status.st_mtim.tv_sec),
            UInt64(status.st_mtim.tv_nsec),
        ]
        return lastNameServerCheck.withLock { last in
            if let last, last.identity == identity { return last.hasNameServers }
            let answer = !current().nameServers.isEmpty
            last = (identity, answer)
            return answer
        }
    }

    private static let lastNameServerCheck = Locked<(identity: [UInt64], hasNameServers: Bool)?>(nil)

    /// Whether there are name servers and all of them are IPv6.
    public var isIPv6Only: Bool { !nameServers.isEmpty && nameServers.allSatisfy { $0.family == .ipv6 } }
}
