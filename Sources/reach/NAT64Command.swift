import ArgumentParser
import NetworkReachabilityKit
import ReachCommandLine

/// `reach nat64`: whether the network is IPv6-only, and its NAT64 prefixes.
struct NAT64Command: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nat64",
        abstract: "Print whether the network is IPv6-only, its NAT64 prefixes (router advertisements, DNS64), RDNSS and portal.",
        discussion: """
            The kernel keeps no copy of past router advertisements: this solicits them (where it may open a raw \
            socket) and listens for --wait seconds, while asking DNS64 for ipv4only.arpa (RFC 7050).
            """
    )

    @Option(
        name: .customLong("wait"), parsing: .unconditional, help: "Seconds to wait for the discovery answer.",
        transform: Seconds.parser(in: Seconds.exchange))
    var wait: Seconds = Self.defaultWait

    /// How long discovery listens and waits for DNS64 unless told otherwise (issue: 3 s).
    static let defaultWait = Seconds(duration: .seconds(3))

    @Flag(help: "Print one JSON object instead of lines of text.")
    var json = false

    func run() async throws {
        let internet = try NetworkReachability(target: .internet).currentSnapshot()
        let resolver = ResolverConfiguration.current()
        async let discovered = NAT64Discovery.discoverPrefixes(timeout: wait.duration)
        async let heard = RouterAdvertisementListener.listen(for: wait.duration)
        let advertised = RouterAdvertisementSummary(folding: await heard)
        let fromAdvertisements = advertised.nat64Prefixes.map {
            DiscoveredNAT64Prefix(prefix: $0.prefix, source: .routerAdvertisement, lifetime: $0.lifetime)
        }
        let fromDNS64 = await discovered.map { DiscoveredNAT64Prefix(prefix: $0, source: .dns64) }
        let record = Record(
            isIPv6Only: internet.path.isIPv6Only, nameServers: resolver.nameServers.map(\.description),
            nameServersIPv6Only: resolver.isIPv6Only, systemdResolved: resolver.isSystemdResolvedStub,
            prefixes: fromAdvertisements + fromDNS64,
            advertisedDNSServers: advertised.dnsServers.map(\.description), captivePortal: advertised.captivePortal)
        if json {
            Output.line(Output.jsonLine(record))
            return
        }
        Output.line(
            "IPv6-only: \(record.isIPv6Only ? "yes" : "no") (routes); name servers: "
                + (record.nameServers.isEmpty ? "none" : record.nameServers.joined(separator: ", "))
                + (record.systemdResolved ? " (systemd-resolved's upstream servers)" : ""))
        if record.prefixes.isEmpty { Output.line("NAT64 prefix: none found") }
        for prefix in record.prefixes { Output.line("NAT64 prefix: \(prefix)") }
        if !record.advertisedDNSServers.isEmpty {
            Output.line("advertised DNS: \(record.advertisedDNSServers.joined(separator: ", "))")
        }
        if let portal = record.captivePortal { Output.line("captive portal: \(portal)") }
    }

    private struct Record: Encodable {
        var isIPv6Only: Bool
        var nameServers: [String]
        var nameServersIPv6Only: Bool
        /// Whether /etc/resolv.conf names only systemd-resolved's stub, so the servers are its upstream ones.
        var systemdResolved: Bool
        var prefixes: [DiscoveredNAT64Prefix]
        var advertisedDNSServers: [String]
        var captivePortal: String?

        enum CodingKeys: String, CodingKey {
            case isIPv6Only, nameServers, nameServersIPv6Only, systemdResolved, prefixes, advertisedDNSServers, captivePortal
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(isIPv6Only, forKey: .isIPv6Only)
            try container.encode(nameServers, forKey: .nameServers)
            try container.encode(nameServersIPv6Only, forKey: .nameServersIPv6Only)
            try container.encode(systemdResolved, forKey: .systemdResolved)
            try container.encode(prefixes, forKey: .prefixes)
            try container.encode(advertisedDNSServers, forKey: .advertisedDNSServers)
            try container.encode(captivePortal, forKey: .captivePortal)
        }
    }

}
