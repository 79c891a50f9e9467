public import NetworkReachabilityCore
import NetworkReachabilityPOSIX

/// The name servers this host's resolver sends to: those of `/etc/resolv.conf`, or, where it names only
/// systemd-resolved's stub (Ubuntu, Fedora, Arch and most desktops), the upstream servers systemd-resolved uses. It
/// says whether the host has DNS at all (`supportsDNS`) and is the second sign of an IPv6-only network.
///
/// systemd-resolved sends a query over every link that has servers and may carry the default route, not only over
/// the route's interface, so its whole upstream list, which it rewrites in `/run/systemd/resolve/resolv.conf` at each
/// change, is what a path can use.
public struct ResolverConfiguration: Sendable, Hashable {
    /// The servers names are sent to, in file order.
    public var nameServers: [IPAddress]
    /// Whether `/etc/resolv.conf` names only systemd-resolved's stub, so that ``nameServers`` are its upstream
    /// servers (none when it has none, or does not run: its varlink socket accepts no connection).
    public var isSystemdResolvedStub: Bool

    /// The addresses of systemd-resolved's stub listeners: `127.0.0.53` (with search domains) and `127.0.0.54`
    /// (proxy only).
    public static let systemdResolvedStubs = Set([[127, 0, 0, 53], [127, 0, 0, 54]].compactMap { IPAddress(bytes: $0) })
    /// Where systemd-resolved writes its upstream servers.
    public static let systemdResolvedUpstreamPath = "/run/systemd/resolve/resolv.conf"
    /// The system's resolver configuration.
    public static let path = "/etc/resolv.conf"

    /// Parses resolv.conf text: `nameserver ADDRESS` lines; comments, other options and bad addresses are skipped.
    /// Where every server is one of systemd-resolved's stubs, the servers are those of `upstream`, the text of
    /// ``systemdResolvedUpstreamPath`` (none when it is `nil`: systemd-resolved is not running).
    public init(parsing text: String, systemdResolvedUpstream upstream: String? = nil) {
        let servers = Self.nameServers(in: text)
        isSystemdResolvedStub = !servers.isEmpty && servers.allSatisfy(Self.systemdResolvedStubs.contains)
        nameServers = isSystemdResolvedStub ? Self.nameServers(in: upstream ?? "") : servers
    }

    /// Reads `/etc/resolv.conf`, and systemd-resolved's upstream servers where it names only the stub and
    /// systemd-resolved runs (the file it leaves behind when it stops names servers no query reaches); no servers
    /// when it cannot be read.
    public static func current() -> ResolverConfiguration { current(isSystemdResolvedRunning: SystemdResolvedWatch.isRunning) }

    /// ``current()``, asking `isSystemdResolvedRunning` whether systemd-resolved runs where the file names its stub.
    static func current(isSystemdResolvedRunning: () -> Bool) -> ResolverConfiguration {
        let text = SmallFile.text(path, limit: 65536) ?? ""
        var configuration = ResolverConfiguration(parsing: text)
        if configuration.isSystemdResolvedStub, isSystemdResolvedRunning() {
            configuration = ResolverConfiguration(
                parsing: text, systemdResolvedUpstream: SmallFile.text(systemdResolvedUpstreamPath, limit: 65536))
        }
        return configuration
    }

    /// Whether there are name servers and all of them are IPv6.
    public var isIPv6Only: Bool { !nameServers.isEmpty && nameServers.allSatisfy { $0.family == .ipv6 } }

    private static func nameServers(in text: String) -> [IPAddress] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, words[0] == "nameserver" else { return nil }
            return try? IPAddress(String(words[1]))
        }
    }

    /// Whether the resolver's configuration now names a server.
    static func namesAServer() -> Bool { !current().nameServers.isEmpty }
}
