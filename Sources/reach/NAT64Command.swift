import ArgumentParser
import FoundationEssentials
import NetworkReachability

/// `reach nat64`: whether the network is IPv6-only, and its NAT64 prefixes.
struct NAT64Command: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nat64",
        abstract: "Print whether the network is IPv6-only and the NAT64 prefixes found (RFC 7050, through DNS64)."
    )

    @Option(name: .customLong("wait"), help: "Seconds to wait for the discovery answer.")
    var wait: ResolutionTimeout = ResolutionTimeout(duration: .seconds(3))

    @Flag(help: "Print one JSON object instead of lines of text.")
    var json = false

    func run() async throws {
        let internet = try NetworkReachability(target: .internet).currentSnapshot()
        let resolver = ResolverConfiguration.current()
        let prefixes = await NAT64Discovery.discoverPrefixes(timeout: wait.duration)
        if json {
            Output.line(Self.jsonLine(isIPv6Only: internet.path.isIPv6Only, resolver: resolver, prefixes: prefixes))
            return
        }
        Output.line(
            "IPv6-only: \(internet.path.isIPv6Only ? "yes" : "no") (routes); name servers: "
                + (resolver.nameServers.isEmpty ? "none" : resolver.nameServers.map(\.description).joined(separator: ", ")))
        if prefixes.isEmpty { Output.line("NAT64 prefix: none found") }
        for prefix in prefixes { Output.line("NAT64 prefix: \(prefix) (dns64, RFC 7050)") }
    }

    private struct Record: Encodable {
        struct Prefix: Encodable {
            var prefix: String
            var source: String
        }
        var isIPv6Only: Bool
        var nameServers: [String]
        var nameServersIPv6Only: Bool
        var prefixes: [Prefix]
    }

    static func jsonLine(isIPv6Only: Bool, resolver: ResolverConfiguration, prefixes: [NAT64Prefix]) -> String {
        let record = Record(
            isIPv6Only: isIPv6Only, nameServers: resolver.nameServers.map(\.description),
            nameServersIPv6Only: resolver.isIPv6Only,
            prefixes: prefixes.map { Record.Prefix(prefix: $0.description, source: "dns64") })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(record)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
