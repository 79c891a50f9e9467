import Foundation
import Testing
import TestSupport

/// What a running `reach watch` keeps about IPv6-only networks: advertised PREF64, RDNSS and portal with
/// their lifetimes, DNS64 prefixes discovered again when the network changes, and IPv4 addresses reached
/// through their synthesized addresses.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct NAT64MonitorInNamespaceTests {
    private func object(_ line: String) -> [String: Any] {
        (line.data(using: .utf8).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]) ?? [:]
    }

    /// The `nat64Prefixes` of a line as `PREFIX SOURCE LIFETIME` strings, e.g. `64:ff9b::/96 dns64 -`.
    private func prefixes(_ line: String) -> [String] {
        (object(line)["nat64Prefixes"] as? [[String: Any]] ?? []).map { prefix in
            let lifetime = (prefix["lifetime"] as? Int).map(String.init) ?? "-"
            return "\(prefix["prefix"] as? String ?? "?") \(prefix["source"] as? String ?? "?") \(lifetime)"
        }
    }

    @Test func watchKeepsWhatRoutersAdvertiseOnTheInternetPathAndALifetimeOfZeroWithdrawsThePrefix() throws {
        // Given an IPv6-only network whose router advertises PREF64, RDNSS and a portal
        let network = try TestNetwork(ipv4: false, ipv6: true)
        defer { network.remove() }
        let announcing = try network.startRouterAdvertisements(prefixLifetime: 1800)
        let output = LineCollector()
        let watcher = try network.start([ReachBinary.path, "watch", "--json"], output: output.pipe)
        defer { watcher.send(SIGKILL) }

        // Then the internet's path carries all three
        let heard = output.waitForLine { prefixes($0) == ["64:ff9b::/96 routerAdvertisement 1800"] }
        #expect(heard != nil)
        #expect(heard.map { object($0)["advertisedDNSServers"] as? [String] } == ["2001:db8::53"])
        #expect(heard.map { object($0)["captivePortal"] as? String } == "https://portal.example/api")
        #expect(heard.map { object($0)["isIPv6Only"] as? Bool } == true)
        // And advertisements that repeat themselves every 200 ms add no lines
        let settled = output.linesAfterQuiet(1).count
        #expect(output.linesAfterQuiet(1).count == settled)

        // When the router advertises the prefix with lifetime 0, a line says it is gone; the rest stays
        announcing.send(SIGKILL)
        announcing.wait()
        _ = try network.startRouterAdvertisements(prefixLifetime: 0)
        let withdrawn = output.waitForLine(after: settled) { prefixes($0).isEmpty }
        #expect(withdrawn.map { object($0)["advertisedDNSServers"] as? [String] } == ["2001:db8::53"])
    }

    @Test func anAdvertisedPrefixLapsesWhenItsLifetimeEndsWithoutANewAdvertisement() throws {
        // Given a router that advertised PREF64 with the shortest lifetime there is (8 s), then fell silent
        let network = try TestNetwork(ipv4: false, ipv6: true)
        defer { network.remove() }
        let announcing = try network.startRouterAdvertisements(prefixLifetime: 8)
        let output = LineCollector()
        let watcher = try network.start([ReachBinary.path, "watch", "--json"], output: output.pipe)
        defer { watcher.send(SIGKILL) }
        let heard = output.waitForLine { prefixes($0) == ["64:ff9b::/96 routerAdvertisement 8"] }
        #expect(heard != nil)
        announcing.send(SIGKILL)
        announcing.wait()
        let count = output.lines.count

        // Then the monitor's one deadline lets the prefix lapse, and a line says so
        let lapsed = output.waitForLine(after: count, timeout: 12) { prefixes($0).isEmpty }
        #expect(lapsed != nil)
        #expect(lapsed.map { object($0)["status"] as? String } == "reachable")
    }

    @Test func dns64PrefixIsFoundByTheMonitorAndFoundAgainWhenTheNetworkChanges() throws {
        // Given an IPv6-only network whose DNS64 answers with the well-known prefix
        let network = try TestNetwork(ipv4: false, ipv6: true)
        defer { network.remove() }
        try network.startDNS(on: TestNetwork.gatewayIPv6, records: ["64:ff9b::c000:aa ipv4only.arpa"])
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv6)
        let output = LineCollector()
        let watcher = try network.start([ReachBinary.path, "watch", "--json"], output: output.pipe)
        defer { watcher.send(SIGKILL) }
        #expect(output.waitForLine { prefixes($0) == ["64:ff9b::/96 dns64 -"] } != nil)

        // When the network goes away and comes back with another DNS64 prefix
        try network.setDNSRecords(["2001:db8:122:c000:0:aa00:: ipv4only.arpa"])
        try network.ip("-6", "route", "del", "default")
        let gone = output.waitForLine { object($0)["status"] as? String == "notReachable" }
        #expect(gone.map(prefixes) == [])
        let count = output.lines.count
        try network.ip("-6", "route", "add", "default", "via", TestNetwork.gatewayIPv6)

        // Then the new prefix is discovered
        #expect(output.waitForLine(after: count) { prefixes($0) == ["2001:db8:122::/48 dns64 -"] } != nil)
    }

    @Test func anIPv4AddressOnAnIPv6OnlyNetworkIsReachedThroughItsSynthesizedAddress() throws {
        // Given an IPv6-only network with DNS64
        let network = try TestNetwork(ipv4: false, ipv6: true)
        defer { network.remove() }
        try network.startDNS(on: TestNetwork.gatewayIPv6, records: ["64:ff9b::c000:aa ipv4only.arpa"])
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv6)

        // Then an IPv4 address is reachable through 64:ff9b::198.51.100.7, over the IPv6 route
        let (exit, json) = try ReachBinary.status(in: network, ["198.51.100.7"])
        #expect(exit == 0)
        #expect(json.string("status") == "reachable")
        #expect(json.string("synthesizedAddress") == "64:ff9b::c633:6407")
        #expect(json.interface("name") as? String == "rn0")
        #expect(json.string("gateway") == TestNetwork.gatewayIPv6)

        // And `reach watch` says unknown first only while discovery runs, then the same
        let output = LineCollector()
        let watcher = try network.start([ReachBinary.path, "watch", "198.51.100.7", "--json"], output: output.pipe)
        defer { watcher.send(SIGKILL) }
        let reached = output.waitForLine { object($0)["status"] as? String == "reachable" }
        #expect(reached.map { object($0)["synthesizedAddress"] as? String } == "64:ff9b::c633:6407")
        #expect(output.linesAfterQuiet().allSatisfy { ["unknown", "reachable"].contains(object($0)["status"] as? String) })
        #expect(
            output.lines.map(object).filter { $0["status"] as? String == "unknown" }.allSatisfy {
                $0["reason"] as? String == "nat64DiscoveryPending"
            })
    }

    @Test func anIPv4AddressOnAnIPv6OnlyNetworkWithoutDNS64IsNotReachable() throws {
        // Given an IPv6-only network whose name server never answers
        let network = try TestNetwork(ipv4: false, ipv6: true)
        defer { network.remove() }
        try network.startSilentDNS(on: TestNetwork.gatewayIPv6)
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv6)

        // Then the IPv4 address is not reachable once discovery gives up, and nothing is synthesized
        let (exit, json) = try ReachBinary.status(in: network, ["198.51.100.7"])
        #expect(exit == 1)
        #expect(json.string("status") == "notReachable")
        #expect(json.string("reason") == "ipv6OnlyWithoutNAT64")
        #expect(json["synthesizedAddress"] == nil)
    }

    @Test func anIPv4AddressOnADualStackNetworkIsNeverSynthesized() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        try network.startDNS(on: TestNetwork.gatewayIPv6, records: ["64:ff9b::c000:aa ipv4only.arpa"])
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv6)
        let (exit, json) = try ReachBinary.status(in: network, ["198.51.100.7"])
        #expect(exit == 0)
        #expect(json.string("gateway") == TestNetwork.gatewayIPv4)
        #expect(json["synthesizedAddress"] == nil)
    }
}
