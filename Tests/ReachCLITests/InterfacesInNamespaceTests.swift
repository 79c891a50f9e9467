import Foundation
import Testing
import TestSupport

/// `reach interfaces` against a namespace's real links: type, kind, state, carrier, addresses, and the internet's.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct InterfacesInNamespaceTests {
    private func interfaces(in network: TestNetwork) throws -> [String: [String: Any]] {
        let result = try network.run([ReachBinary.path, "interfaces", "--json"])
        #expect(result.status == 0)
        let list = try #require(
            try JSONSerialization.jsonObject(with: Data((result.lines.first ?? "").utf8)) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as? String ?? "?", $0) })
    }

    @Test func everyLinkIsListedWithItsStateAddressesAndTheOneThatCarriesTheInternet() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        try network.addTun(named: "rntun0")
        var listed = try interfaces(in: network)
        #expect(Set(listed.keys) == ["lo", "rn0", "rntun0"])
        let uplink = try #require(listed["rn0"])
        #expect(uplink["type"] as? String == "wiredEthernet")
        #expect(uplink["linkKind"] as? String == "veth")
        #expect(uplink["isUp"] as? Bool == true && uplink["hasCarrier"] as? Bool == true)
        #expect(uplink["operationalState"] as? String == "up")
        #expect(
            Set(uplink["addresses"] as? [String] ?? []).isSuperset(of: [
                "\(TestNetwork.hostIPv4)/24", "\(TestNetwork.hostIPv6)/64",
            ]))
        #expect(uplink["carriesInternet"] as? Bool == true)
        #expect(listed["lo"]?["type"] as? String == "loopback")
        #expect(listed["lo"]?["carriesInternet"] as? Bool == false)
        #expect(listed["rntun0"]?["type"] as? String == "other")
        #expect(listed["rntun0"]?["linkKind"] as? String == "tun")

        // Without carrier the uplink is still up, but carries nothing
        try network.gatewayIP("link", "set", "rngw", "down")
        try network.waitForOperationalState("DOWN", of: "rn0")
        listed = try interfaces(in: network)
        #expect(listed["rn0"]?["isUp"] as? Bool == true && listed["rn0"]?["hasCarrier"] as? Bool == false)
        #expect(listed["rn0"]?["operationalState"] as? String == "down")
        #expect(listed["rn0"]?["carriesInternet"] as? Bool == false)

        let table = try network.run([ReachBinary.path, "interfaces"])
        #expect(table.status == 0)
        #expect(table.lines.first?.hasPrefix("IDX  NAME") == true)
        #expect(table.lines.contains { $0.contains("rn0") && $0.contains("veth") && $0.contains(" no ") })
    }

    /// NWPath's view of the internet: every gateway of a multipath default route, the usable interfaces (the
    /// route's own first) and whether a name server is configured.
    @Test func theInternetsPathNamesEveryGatewayEveryUsableInterfaceAndDNS() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.addSecondUplink()
        try network.ip(
            "route", "replace", "default", "nexthop", "via", TestNetwork.gatewayIPv4, "dev", "rn0", "nexthop", "via",
            TestNetwork.secondGatewayIPv4, "dev", "rn1")
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv4)
        var (exit, json) = try ReachBinary.status(in: network, [])
        #expect(exit == 0)
        #expect(Set(json["gateways"] as? [String] ?? []) == [TestNetwork.gatewayIPv4, TestNetwork.secondGatewayIPv4])
        let available = (json["availableInterfaces"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(Set(available) == ["rn0", "rn1"])
        #expect(available.first == json.interface("name") as? String)
        #expect(json.bool("supportsDNS") == true)

        try network.writeResolverConfiguration("")
        (exit, json) = try ReachBinary.status(in: network, [])
        #expect(json.bool("supportsDNS") == false)
        (exit, json) = try ReachBinary.status(in: network, [TestNetwork.gatewayIPv4])
        #expect(json["gateways"] as? [String] == [])
        #expect((json["availableInterfaces"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["rn0"])
        #expect(json["supportsDNS"] == nil)
    }

    /// `reach watch` learns of a multipath default route from its notification and names every gateway, then one
    /// again when a single route replaces it.
    @Test func watchNamesEveryGatewayOfAMultipathRouteOnceItArrives() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.addSecondUplink()
        let output = LineCollector()
        let watcher = try network.start([ReachBinary.path, "watch", "--json"], output: output.pipe)
        defer { watcher.send(SIGKILL) }
        func gateways(_ line: String) -> Set<String> {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return Set(object?["gateways"] as? [String] ?? [])
        }
        #expect(output.waitForLines(1).map(gateways) == [[TestNetwork.gatewayIPv4]])
        try network.ip(
            "route", "replace", "default", "nexthop", "via", TestNetwork.gatewayIPv4, "dev", "rn0", "nexthop", "via",
            TestNetwork.secondGatewayIPv4, "dev", "rn1")
        #expect(output.waitForLine { gateways($0) == [TestNetwork.gatewayIPv4, TestNetwork.secondGatewayIPv4] } != nil)
        try network.ip("route", "replace", "default", "via", TestNetwork.secondGatewayIPv4)
        #expect(output.waitForLine { gateways($0) == [TestNetwork.secondGatewayIPv4] } != nil)
    }
}
