import Foundation
import Testing
import TestSupport

/// The link under a VPN, from outside: a `tun` device (this kernel has no WireGuard module) as the tunnel, routed the
/// two ways VPN clients route the internet into one, and the physical route moved between two veths under a running
/// `reach watch`. The tunnel over a real NetworkManager's metered modem is in `RealModemLinkInNamespaceTests`.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct VPNUnderlayInNamespaceTests {
    /// A host with two uplinks (`rn0` via 192.0.2.1, `rn1` via 198.51.100.1) and a tunnel `tun0` (10.8.0.2/24).
    private static func network() throws -> TestNetwork {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        do {
            try network.addSecondUplink()
            try network.addTun(named: "tun0")
            try network.ip("addr", "add", "10.8.0.2/24", "dev", "tun0")
            try network.ip("link", "set", "tun0", "up")
        } catch {
            network.remove()
            throw error
        }
        return network
    }

    /// The name of the first link `status` names under its VPN.
    private static func underlying(_ status: [String: Any]) -> String? {
        ((status["underlying"] as? [[String: Any]])?.first?["interface"] as? [String: Any])?.string("name")
    }

    @Test func openVPNsSplitDefaultNamesTheDefaultItShadowsWhichAWatchFollowsFromOneUplinkToTheOther() throws {
        let network = try Self.network()
        defer { network.remove() }
        // Before the tunnel: no VPN, and no `underlying` key
        let before = try ReachBinary.status(in: network, []).json
        #expect(before["vpn"] == nil && before["underlying"] == nil, "\(before)")

        // When OpenVPN's `redirect-gateway def1` routes the internet into the tunnel
        try network.ip("route", "add", "0.0.0.0/1", "dev", "tun0")
        try network.ip("route", "add", "128.0.0.0/1", "dev", "tun0")
        // Then the internet's path is the tunnel's, a VPN over rn0 by the default it shadows, and so is an address's
        let status = try ReachBinary.status(in: network, []).json
        #expect((status["interface"] as? [String: Any])?.string("name") == "tun0" && status.bool("vpn") == true)
        let under = try #require((status["underlying"] as? [[String: Any]])?.first, "\(status)")
        #expect((under["interface"] as? [String: Any])?.string("type") == "wiredEthernet", "\(under)")
        #expect(under.string("gateway") == TestNetwork.gatewayIPv4 && under.bool("isExpensive") == false, "\(under)")
        #expect(Self.underlying(status) == "rn0")
        #expect(Self.underlying(try ReachBinary.status(in: network, ["10.77.0.1"]).json) == "rn0")
        // (a restriction looks through the tunnel: prohibiting wired Ethernet leaves nothing, as both uplinks are)
        let prohibited = try ReachBinary.status(in: network, ["--prohibit", "wiredEthernet"])
        #expect(prohibited.exit == 1 && prohibited.json.string("reason") == "prohibitedInterfaceType", "\(prohibited.json)")

        // When the physical default moves from rn0 to rn1, and then goes, under a running watch of the internet and of
        // an address through the tunnel
        let output = LineCollector()
        _ = try network.start([ReachBinary.path, "watch", "internet", "10.77.0.1"], output: output.pipe)
        #expect(output.waitForLines(2).count == 2)
        try network.ip("route", "replace", "default", "via", TestNetwork.secondGatewayIPv4, "dev", "rn1")
        let moved = output.waitForLines(4)
        try network.ip("route", "del", "default")
        let gone = output.waitForLines(6)
        let lines = output.linesAfterQuiet()
        print("a tunnel's underlay moved and gone:\n\(lines.joined(separator: "\n"))")
        // Then each target hears each move once, and its status never changes: the tunnel still carries it
        #expect(Array(moved.dropFirst(2)).sorted() == [
            "10.77.0.1: reachable via other tun0, VPN over wiredEthernet rn1 [-R t-----d]",
            "internet: reachable via other tun0, VPN over wiredEthernet rn1 [-R t-----d]",
        ])
        #expect(Array(gone.dropFirst(4)).sorted() == [
            "10.77.0.1: reachable via other tun0, VPN over an unknown link [-R t-----d]",
            "internet: reachable via other tun0, VPN over an unknown link [-R t-----d]",
        ])
        #expect(lines.count == 6, "\(lines)")
    }

    @Test func wgQuicksFirewallMarkRulesNameTheRouteTheTunnelsOwnPacketsTakeAndANetworksSettingsCostTheTunnel() throws {
        let network = try Self.network()
        defer { network.remove() }
        // When wg-quick routes everything into the tunnel's table but what carries its mark
        try network.ip("route", "add", "default", "dev", "tun0", "table", "51820")
        try network.ip("rule", "add", "not", "fwmark", "51820", "table", "51820")
        try network.ip("rule", "add", "table", "main", "suppress_prefixlength", "0")
        // Then the path is the tunnel's over rn0, the main table's route for marked packets
        let status = try ReachBinary.status(in: network, []).json
        #expect((status["interface"] as? [String: Any])?.string("name") == "tun0" && Self.underlying(status) == "rn0")
        // And when the marked packets' route moves to rn1, so does the underlay, for a one-shot read and a watch
        let output = LineCollector()
        _ = try network.start([ReachBinary.path, "watch", "--json"], output: output.pipe)
        #expect(output.waitForLines(1).count == 1)
        try network.ip("route", "replace", "default", "via", TestNetwork.secondGatewayIPv4, "dev", "rn1")
        #expect(Self.underlying(try ReachBinary.status(in: network, []).json) == "rn1")
        let heard = output.waitForLine(after: 1) { $0.contains(#""name":"rn1""#) }
        #expect(heard != nil, "\(output.lines)")

        // When the settings call rn1's network metered, the tunnel over it is expensive: a wait for an unmetered
        // path does not end, and ends once the network is called not metered
        var identity: String?
        for _ in 0..<100 where identity == nil {
            try network.touch(TestNetwork.secondGatewayIPv4)
            let under = (try ReachBinary.status(in: network, []).json["underlying"] as? [[String: Any]])?.first
            identity = (under?["network"] as? [String: Any])?.string("id")
            if identity == nil { usleep(50_000) }
        }
        let id = try #require(identity, "rn1's network was never identified")
        let folder = try TestFolder.make("vpn-settings")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reach = ["env", "REACH_NETWORKS=\(folder)/networks", ReachBinary.path]
        let labelled = try network.run(reach + ["networks", "label", "tether", "--metered", "yes", "--network", id])
        #expect(labelled.status == 0, "\(labelled.standardError)")
        let metered = try #require(try JSONSerialization.jsonObject(
            with: Data(try network.run(reach + ["status", "--json"]).standardOutput.utf8)) as? [String: Any])
        let under = (metered["underlying"] as? [[String: Any]])?.first
        #expect((under?["network"] as? [String: Any])?.string("label") == "tether", "\(metered)")
        #expect(under?.bool("isExpensive") == true && metered.bool("isExpensive") == true, "\(metered)")
        #expect(try network.run(reach + ["wait", "--unmetered", "--timeout", "0"]).status == 1)
        // (the exporter names the link under the tunnel, and its cost)
        let server = try ServeClient(["internet"], in: network, environment: ["REACH_NETWORKS=\(folder)/networks"])
        defer { server.stop() }
        let underlyingInfo = try server.samples(of: "reach_target_underlying_info").map(\.labels)
        #expect(underlyingInfo == [["interface": "rn1", "type": "wiredEthernet", "gateway": TestNetwork.secondGatewayIPv4]])
        #expect(try server.samples(of: "reach_target_metered").map(\.value) == [1])
        // (a running watch names the network under the tunnel, hears it called not metered, and hears it change)
        let watch = LineCollector()
        _ = try network.start(["env", "REACH_NETWORKS=\(folder)/networks", ReachBinary.path, "watch"], output: watch.pipe)
        #expect(watch.waitForLines(1).first?.hasSuffix("VPN over wiredEthernet rn1 on network tether (metered) [-R t-----d]") == true)
        _ = try network.run(reach + ["networks", "label", "tether", "--metered", "no", "--network", id])
        #expect(try network.run(reach + ["wait", "--unmetered", "--timeout", "0"]).status == 0)
        #expect(watch.waitForLines(2).last?.hasSuffix("on network tether (not metered) [-R t-----d]") == true, "\(watch.lines)")
        try network.gatewayIP("link", "set", "rngw1", "address", "02:00:00:00:0c:01")
        try network.ip("neigh", "flush", "dev", "rn1")
        var changed: String?
        for _ in 0..<100 where changed == nil {
            try network.touch(TestNetwork.secondGatewayIPv4)  // the host learns the gateway's new MAC address
            changed = watch.waitForLine(after: 2, timeout: 0.05) { $0.contains("network under the VPN changed: tether (") }
        }
        #expect(changed != nil, "\(watch.lines)")
    }

    @Test func aMultipathDefaultIsEveryLegABackupDefaultIsNoneAndNeitherHundredsOfLinksNorOfMarkRulesOverflowAnything() throws {
        let network = try Self.network()
        defer { network.remove() }
        try network.ip("route", "add", "0.0.0.0/1", "dev", "tun0")
        try network.ip("route", "add", "128.0.0.0/1", "dev", "tun0")
        // A multipath default under the split default: both legs carry the tunnel, and both count
        try network.ip(
            "route", "replace", "default", "nexthop", "via", TestNetwork.gatewayIPv4, "dev", "rn0",
            "nexthop", "via", TestNetwork.secondGatewayIPv4, "dev", "rn1")
        let multipath = try ReachBinary.status(in: network, []).json
        let legs = (multipath["underlying"] as? [[String: Any]])?.compactMap { ($0["interface"] as? [String: Any])?.string("name") }
        #expect(legs == ["rn0", "rn1"], "\(multipath)")
        let prohibited = try ReachBinary.status(in: network, ["--prohibit", "wiredEthernet"])
        #expect(prohibited.exit == 1, "\(prohibited.json)")
        let server = try ServeClient(["internet"], in: network)
        let served = try server.samples(of: "reach_target_underlying_info").compactMap { $0.labels["interface"] }
        _ = server.stop()
        #expect(served.sorted() == ["rn0", "rn1"], "\(served)")

        let batch = try TestFolder.make("vpn-rules")
        defer { try? FileManager.default.removeItem(atPath: batch) }
        // (a container host's 200 more links, up, each asked for a default in batches the socket's buffer holds)
        let veths = (0..<100).flatMap { ["link add vb\($0) type veth peer name vc\($0)", "link set vb\($0) up", "link set vc\($0) up"] }
        try (veths.joined(separator: "\n") + "\n").write(toFile: batch + "/veths", atomically: true, encoding: .utf8)
        try network.ip("-batch", batch + "/veths")
        let crowded = try ReachBinary.status(in: network, [])
        let crowdedLegs = (crowded.json["underlying"] as? [[String: Any]])?.compactMap {
            ($0["interface"] as? [String: Any])?.string("name")
        }
        #expect(crowded.exit == 0 && crowdedLegs == ["rn0", "rn1"], "\(crowded.json)")

        // 300 rules that route by marks of a policy router, and 300 that exclude marks: the status is the same, at once
        var rules = (1...300).map { "rule add fwmark \(0x10000 + $0)/0xffff lookup \(5000 + $0) pref \(1000 + $0)" }
        rules += (1...300).map { "rule add not fwmark \(0x20000 + $0) lookup \(6000 + $0) pref \(2000 + $0)" }
        try (rules.joined(separator: "\n") + "\n").write(toFile: batch + "/rules", atomically: true, encoding: .utf8)
        let output = LineCollector()
        _ = try network.start([ReachBinary.path, "watch"], output: output.pipe)
        #expect(output.waitForLines(1).count == 1)
        try network.ip("-batch", batch + "/rules")
        let ruled = try ReachBinary.status(in: network, [])
        #expect(ruled.exit == 0 && Self.underlying(ruled.json) == "rn0", "\(ruled.json)")
        // (and a running watch still hears the next change)
        try network.ip("route", "replace", "default", "via", TestNetwork.secondGatewayIPv4, "dev", "rn1")
        #expect(output.waitForLine(after: 1) { $0.hasSuffix("VPN over wiredEthernet rn1 [-R t-----d]") } != nil, "\(output.lines)")

        // A tunnel that owns the best default leaves the others as its backups: they do not carry it
        try network.ip("route", "del", "0.0.0.0/1", "dev", "tun0")
        try network.ip("route", "del", "128.0.0.0/1", "dev", "tun0")
        try network.ip("route", "replace", "default", "dev", "tun0", "metric", "100")
        try network.ip("route", "del", "default", "via", TestNetwork.secondGatewayIPv4, "dev", "rn1")
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4, "dev", "rn0", "metric", "200")
        let owned = try ReachBinary.status(in: network, []).json
        #expect((owned["interface"] as? [String: Any])?.string("name") == "tun0", "\(owned)")
        #expect(owned.bool("vpn") == true && (owned["underlying"] as? [Any])?.isEmpty == true, "\(owned)")
    }
}
