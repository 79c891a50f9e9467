import Foundation
import Testing
import TestSupport

/// IPv6-only networks and RFC 7050 NAT64 discovery through `reach`, with dnsmasq as the DNS64 server.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct IPv6OnlyInNamespaceTests {
    private func nat64(in network: TestNetwork, wait: String = "2") throws -> [String: Any] {
        let result = try network.run([ReachBinary.path, "nat64", "--json", "--wait", wait])
        return (result.lines.first?.data(using: .utf8).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any])
            ?? [:]
    }

    private func prefixes(_ json: [String: Any]) -> [String] {
        (json["prefixes"] as? [[String: Any]] ?? []).compactMap { $0["prefix"] as? String }
    }

    @Test func ipv6OnlyNetworkIsIPv6OnlyAndDualStackIsNot() throws {
        let ipv6Only = try TestNetwork(ipv4: false, ipv6: true)
        defer { ipv6Only.remove() }
        let dualStack = try TestNetwork()
        defer { dualStack.remove() }
        #expect(try ReachBinary.status(in: ipv6Only, []).json.bool("isIPv6Only") == true)
        #expect(try ReachBinary.status(in: dualStack, []).json.bool("isIPv6Only") == false)
        #expect(try nat64(in: ipv6Only)["isIPv6Only"] as? Bool == true)
        #expect(try nat64(in: dualStack)["isIPv6Only"] as? Bool == false)
    }

    @Test func dns64AnswerForIpv4onlyArpaGivesTheWellKnownPrefixAndSynthesisUsesIt() throws {
        let network = try TestNetwork(ipv4: false, ipv6: true)
        defer { network.remove() }
        try network.startDNS(on: TestNetwork.gatewayIPv6, records: ["64:ff9b::c000:aa ipv4only.arpa"])
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv6)
        let json = try nat64(in: network)
        #expect(prefixes(json) == ["64:ff9b::/96"])
        #expect((json["prefixes"] as? [[String: Any]])?.first?["source"] as? String == "dns64")
        #expect(json["nameServersIPv6Only"] as? Bool == true)
        let synthesized = try network.run([ReachBinary.path, "synthesize", "192.0.2.33"])
        #expect(synthesized.status == 0)
        #expect(synthesized.lines == ["64:ff9b::c000:221"])
    }

    @Test func networkSpecificPrefixOfLength48IsFound() throws {
        let network = try TestNetwork(ipv4: false, ipv6: true)
        defer { network.remove() }
        try network.startDNS(on: TestNetwork.gatewayIPv6, records: ["2001:db8:122:c000:0:aa00:: ipv4only.arpa"])
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv6)
        #expect(prefixes(try nat64(in: network)) == ["2001:db8:122::/48"])
    }

    @Test func noDNS64AnswerMeansNoPrefixAndNoHang() throws {
        let network = try TestNetwork(ipv4: false, ipv6: true)
        defer { network.remove() }
        try network.startSilentDNS(on: TestNetwork.gatewayIPv6)
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv6, timeoutSeconds: 5, attempts: 2)
        let started = Date()
        let json = try nat64(in: network, wait: "1")
        #expect(prefixes(json) == [])
        #expect(Date().timeIntervalSince(started) < 5)  // bounded by --wait, not by glibc's 10 s of retries
        let synthesize = try network.run([ReachBinary.path, "synthesize", "192.0.2.33"])
        #expect(synthesize.status == 1)
        #expect(synthesize.standardError.split(separator: "\n").count == 1)
    }

    @Test func routerAdvertisementsCarryPref64RDNSSAndPortalAndALifetimeOfZeroWithdrawsThePrefix() throws {
        let network = try TestNetwork(ipv4: false, ipv6: true)
        defer { network.remove() }
        let announcing = try network.startRouterAdvertisements(prefixLifetime: 1800)
        let heard = try nat64(in: network, wait: "1.5")
        let advertised = (heard["prefixes"] as? [[String: Any]] ?? []).first { $0["source"] as? String == "routerAdvertisement" }
        #expect(advertised?["prefix"] as? String == "64:ff9b::/96")
        #expect(advertised?["lifetime"] as? Int == 1800)
        #expect(heard["advertisedDNSServers"] as? [String] == ["2001:db8::53"])
        #expect(heard["captivePortal"] as? String == "https://portal.example/api")
        // When the router advertises the prefix with lifetime 0, it is withdrawn (the rest is still heard)
        announcing.send(SIGKILL)
        announcing.wait()
        _ = try network.startRouterAdvertisements(prefixLifetime: 0)
        let withdrawn = try nat64(in: network, wait: "1.5")
        #expect((withdrawn["prefixes"] as? [[String: Any]] ?? []).allSatisfy { $0["source"] as? String != "routerAdvertisement" })
        #expect(withdrawn["advertisedDNSServers"] as? [String] == ["2001:db8::53"])
    }

    @Test func invalidPrefixIsBadInput() throws {
        let result = try ReachBinary.run(["synthesize", "192.0.2.33", "--prefix", "64:ff9b::/95"])
        #expect(result.status == 64)
        #expect(result.standardOutput.isEmpty)
        #expect(try ReachBinary.run(["synthesize", "2001:db8::1", "--prefix", "64:ff9b::/96"]).status == 64)
    }
}
