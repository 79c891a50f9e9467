import Foundation
import Testing
import TestSupport

/// Why a target is not reachable (the JSON `reason`), from real kernel state: routes that refuse, links that
/// cannot carry. Host-name and NAT64 reasons are asserted where those suites build their networks.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct ReasonsInNamespaceTests {
    private func reason(in network: TestNetwork, _ target: String) throws -> String? {
        let (exit, json) = try ReachBinary.status(in: network, [target])
        #expect(exit == (json.string("status") == "reachable" ? 0 : 1))
        return json.string("reason")
    }

    @Test func eachKindOfRouteThatCarriesNothingIsItsOwnReason() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "add", "unreachable", "198.51.100.0/24")
        try network.ip("route", "add", "prohibit", "198.51.101.0/24")
        try network.ip("route", "add", "blackhole", "198.51.102.0/24")
        #expect(try reason(in: network, "198.51.100.1") == "unreachableRoute")
        #expect(try reason(in: network, "198.51.101.1") == "prohibitRoute")
        #expect(try reason(in: network, "198.51.102.1") == "blackholeRoute")
        #expect(try reason(in: network, "internet") == nil)  // reachable: no reason, and the key is null
        try network.ip("route", "del", "default")
        #expect(try reason(in: network, "internet") == "noRoute")
        #expect(try reason(in: network, "link-local") == "noLinkLocalAddress")
    }

    @Test func aLinkThatCannotCarrySaysWhyNoCarrierDormantOrDown() throws {
        let network = try TestNetwork(ipv4: true, ipv6: true)
        defer { network.remove() }
        // The gateway's end goes down: the host's end is up without carrier, and its routes stay (linkdown)
        try network.gatewayIP("link", "set", "rngw", "down")
        try network.waitForOperationalState("DOWN", of: "rn0")
        #expect(try reason(in: network, "internet") == "noCarrier")
        // Carrier back, but the link waits in dormant mode (as for 802.1X) until its supplicant says so
        try network.ip("link", "set", "rn0", "mode", "dormant")
        try network.gatewayIP("link", "set", "rngw", "up")
        try network.waitForOperationalState("DORMANT", of: "rn0")
        #expect(try reason(in: network, TestNetwork.gatewayIPv4) == "dormant")
        // Taken down, the link loses its routes; a target that names it by zone learns that it is down
        try network.ip("link", "set", "rn0", "down")
        #expect(try reason(in: network, "fe80::1%rn0") == "linkDown")
        #expect(try reason(in: network, "internet") == "noRoute")
    }

    /// `--prohibit` and `--require` restrict the target to interface types; with only a prohibited one carrying it,
    /// it is not reachable, and says so.
    @Test func onlyAProhibitedInterfaceTypeIsItsOwnReason() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        var (exit, json) = try ReachBinary.status(in: network, ["--prohibit", "wiredEthernet"])
        #expect(exit == 1)
        #expect(json.string("target") == "internet [not wiredEthernet]")
        #expect(json.string("reason") == "prohibitedInterfaceType")
        (exit, json) = try ReachBinary.status(in: network, ["--require", "wiredEthernet", "--prohibit", "cellular"])
        #expect(exit == 0)
        #expect(json.interface("name") as? String == "rn0")
        let wait = try network.run([ReachBinary.path, "wait", "--timeout", "0.2", "--require", "wifi"])
        #expect(wait.status == 1)
        #expect(wait.standardError.contains("internet [only wifi] (not reachable: only through a prohibited interface type)"))
    }
}
