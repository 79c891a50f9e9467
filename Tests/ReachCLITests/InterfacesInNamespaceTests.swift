import Foundation
import Testing
import TestSupport

/// `reach interfaces` against a namespace's real links: type, kind, state, carrier, addresses, and the internet's.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"))
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
}
