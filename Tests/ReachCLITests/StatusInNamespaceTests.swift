import Foundation
import Testing
import TestSupport

/// `reach status` against the real kernel, inside namespaces the tests build and remove.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct StatusInNamespaceTests {
    @Test func dualStackNetworkMakesTheInternetReachableOverWiredEthernetViaTheIPv4Gateway() throws {
        // Given a namespace with IPv4 and IPv6 default routes over a veth
        let network = try TestNetwork()
        defer { network.remove() }
        // When
        let (exit, json) = try ReachBinary.status(in: network, [])
        // Then
        #expect(exit == 0)
        #expect(json.string("target") == "internet")
        #expect(json.string("status") == "reachable")
        #expect(json.string("connection") == "ethernetOrWiFi")
        #expect(json.string("flagsString") == "-R -------")
        #expect(json["flags"] as? [String] == ["reachable"])
        #expect(json.interface("name") as? String == "rn0")
        #expect(json.interface("type") as? String == "wiredEthernet")
        #expect(json.string("gateway") == TestNetwork.gatewayIPv4)
        #expect(json.bool("supportsIPv4") == true)
        #expect(json.bool("supportsIPv6") == true)
        #expect(json.bool("isExpensive") == false)
        let time = try #require(json.string("time"))
        #expect(time.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil)
    }

    @Test func deletedDefaultRoutesMakeTheInternetNotReachableWithExitOne() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        try network.ip("route", "del", "default")
        try network.ip("-6", "route", "del", "default")
        let (exit, json) = try ReachBinary.status(in: network, [])
        #expect(exit == 1)
        #expect(json.string("status") == "notReachable")
        #expect(json["connection"] is NSNull)
        #expect(json["interface"] is NSNull)
        #expect(json.string("flagsString") == "-- -------")
        #expect(json.bool("supportsIPv4") == false)
        #expect(json.bool("supportsIPv6") == false)
    }

    @Test func ipv4OnlyNetworkSupportsIPv4Only() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let (exit, json) = try ReachBinary.status(in: network, [])
        #expect(exit == 0)
        #expect(json.bool("supportsIPv4") == true)
        #expect(json.bool("supportsIPv6") == false)
        #expect(json.string("gateway") == TestNetwork.gatewayIPv4)
    }

    @Test func ipv6OnlyNetworkSupportsIPv6OnlyAndReportsTheIPv6Gateway() throws {
        let network = try TestNetwork(ipv4: false, ipv6: true)
        defer { network.remove() }
        let (exit, json) = try ReachBinary.status(in: network, [])
        #expect(exit == 0)
        #expect(json.bool("supportsIPv4") == false)
        #expect(json.bool("supportsIPv6") == true)
        #expect(json.string("gateway") == TestNetwork.gatewayIPv6)
    }

    @Test(arguments: [
        (TestNetwork.gatewayIPv4, "-R ------d", "rn0", "wiredEthernet"),
        (TestNetwork.gatewayIPv6, "-R ------d", "rn0", "wiredEthernet"),
        (TestNetwork.hostIPv4, "-R -----ld", "lo", "loopback"),
        (TestNetwork.hostIPv6, "-R -----ld", "lo", "loopback"),
        ("127.0.0.1", "-R -----ld", "lo", "loopback"),
        ("::1", "-R -----ld", "lo", "loopback"),
        ("198.51.100.7", "-R -------", "rn0", "wiredEthernet"),
        // Odd but valid: evaluated as the kernel routes them (`ip route get` shows local, broadcast, multicast)
        ("0.0.0.0", "-R -----ld", "lo", "loopback"),
        ("255.255.255.255", "-R ------d", "rn0", "wiredEthernet"),
        ("192.0.2.255", "-R ------d", "rn0", "wiredEthernet"),
        ("224.0.0.1", "-R ------d", "rn0", "wiredEthernet"),
        ("::ffff:192.0.2.1", "-R -------", "rn0", "wiredEthernet"),
    ])
    func addressTargetsReportDirectAndLocalAsTheKernelRoutesThem(
        address: String, flagsString: String, interface: String, type: String
    ) throws {
        let network = try TestNetwork()
        defer { network.remove() }
        let (exit, json) = try ReachBinary.status(in: network, [address])
        #expect(exit == 0)
        #expect(json.string("target") == address)
        #expect(json.string("flagsString") == flagsString)
        #expect(json.interface("name") as? String == interface)
        #expect(json.interface("type") as? String == type)
    }

    @Test func carrierLostOnTheGatewaySideRequiresAConnectionUntilItComesBack() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        // When the gateway's end of the veth goes down, ours loses carrier but keeps its routes
        try network.gatewayIP("link", "set", "rngw", "down")
        let (downExit, down) = try ReachBinary.status(in: network, [])
        #expect(downExit == 1)
        #expect(down.string("status") == "notReachable")
        #expect(down["flags"] as? [String] == ["reachable", "connectionRequired"])
        #expect(down.string("flagsString") == "-R -c-----")
        // And when it comes back
        try network.gatewayIP("link", "set", "rngw", "up")
        let (upExit, up) = try ReachBinary.status(in: network, [])
        #expect(upExit == 0)
        #expect(up.string("flagsString") == "-R -------")
    }

    @Test func tunWithPointToPointRouteIsTransientAndSplitDefaultsCarryTheInternet() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.addTun(named: "rntun")
        try network.ip("addr", "add", "10.200.0.1", "peer", "10.200.0.2", "dev", "rntun")
        try network.ip("link", "set", "rntun", "up")
        let (peerExit, peer) = try ReachBinary.status(in: network, ["10.200.0.2"])
        #expect(peerExit == 0)
        #expect(peer.string("flagsString") == "-R t-----d")
        #expect(peer.interface("type") as? String == "other")
        // When the default route is replaced by a VPN-style split default through the tun
        try network.ip("route", "del", "default")
        try network.ip("route", "add", "0.0.0.0/1", "dev", "rntun")
        try network.ip("route", "add", "128.0.0.0/1", "dev", "rntun")
        let (exit, internet) = try ReachBinary.status(in: network, [])
        #expect(exit == 0)
        #expect(internet.string("status") == "reachable")
        #expect(internet.interface("name") as? String == "rntun")
        #expect((internet["flags"] as? [String])?.contains("transientConnection") == true)
    }

    @Test(arguments: ["blackhole", "unreachable", "prohibit", "throw"])
    func rejectingRouteTypesGiveEmptyFlags(type: String) throws {
        let network = try TestNetwork()
        defer { network.remove() }
        try network.ip("route", "add", type, "198.51.100.0/24")
        let (exit, json) = try ReachBinary.status(in: network, ["198.51.100.7"])
        #expect(exit == 1)
        #expect(json["flags"] as? [String] == [])
        #expect(json.string("flagsString") == "-- -------")
    }

    @Test func policyRulesDecideAsTheKernelDoes() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        // A rule steering the destination to a table that holds only `unreachable default`
        try network.ip("route", "add", "unreachable", "default", "table", "100")
        try network.ip("rule", "add", "to", "203.0.113.0/24", "table", "100", "priority", "100")
        #expect(try ReachBinary.status(in: network, ["203.0.113.5"]).exit == 1)
        // A rule to an empty table falls through to `main`
        try network.ip("rule", "del", "priority", "100")
        try network.ip("rule", "add", "to", "203.0.113.0/24", "table", "101", "priority", "100")
        let (exit, json) = try ReachBinary.status(in: network, ["203.0.113.5"])
        #expect(exit == 0)
        #expect(json.string("gateway") == TestNetwork.gatewayIPv4)
    }

    @Test func addressPairFromAnOwnedAddressIsEvaluatedAndFromAForeignOneIsAClearError() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        let owned = try ReachBinary.status(in: network, [TestNetwork.gatewayIPv4, "--from", TestNetwork.hostIPv4])
        #expect(owned.exit == 0)
        #expect(owned.json.string("flagsString") == "-R ------d")
        let foreign = try network.run([ReachBinary.path, "status", TestNetwork.gatewayIPv4, "--from", "192.0.2.99"])
        #expect(foreign.status == 64)
        #expect(foreign.standardOutput.isEmpty)
        #expect(foreign.standardError.split(separator: "\n").count == 1)
        #expect(foreign.standardError.contains("192.0.2.99 is not an address of this host"))
    }
}
