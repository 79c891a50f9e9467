import Foundation
import Testing
import TestSupport

/// Which network this is, from outside: two gateway namespaces with the same addresses and different MAC addresses
/// behind one switch, swapped under a running `reach watch`, read again by `reach status` after restarts and an
/// address renewal.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct NetworkIdentityCLIInNamespaceTests {
    /// The `network` object of `target` (the internet) once the host has resolved its gateway, within 5 s.
    private func network(in network: TestNetwork, _ target: [String] = [], gateway: String = TestNetwork.gatewayIPv4) throws
        -> [String: Any]
    {
        let deadline = Date().addingTimeInterval(5)
        repeat {
            let status = try ReachBinary.status(in: network, target)
            if let identity = status.json["network"] as? [String: Any] { return identity }
            try network.touch(gateway)
            usleep(50_000)
        } while Date() < deadline
        throw CommandError(
            command: ["reach status"], result: CommandResult(status: 1, standardOutput: "", standardError: "no network"))
    }

    @Test func twoGatewaysWithTheSameAddressesAreTwoNetworksAndASwapUnderWatchIsOneLine() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.splitGateway()

        // The first gateway's network: the same identity for every reach that reads it, resting on its MAC alone
        let first = try self.network(in: network)
        let firstID = try #require(first["id"] as? String)
        #expect(firstID.count == 16 && firstID.allSatisfy(\.isHexDigit))
        #expect(first["ingredients"] as? [String] == ["gatewayMAC"])
        #expect(first.keys.contains("label") && first["label"] is NSNull)
        #expect(try self.network(in: network)["id"] as? String == firstID)
        // No MAC address in what reach prints, in any spelling
        let printed = try network.run([ReachBinary.path, "status", "--json"]).standardOutput.lowercased()
        for spelling in ["02:00:00:00:0a:01", "020000000a01", "2:0:0:0:a:1"] { #expect(!printed.contains(spelling)) }

        // When the gateway is swapped for another with the same addresses, a running watch prints one line saying so,
        // and nothing else: the status did not change
        let output = LineCollector()
        _ = try network.start([ReachBinary.path, "watch"], output: output.pipe)
        #expect(output.waitForLines(1).first?.hasPrefix("internet: reachable via wiredEthernet rn0") == true)
        try network.swapGateway()
        let lines = output.waitForLines(2)
        let second = try self.network(in: network)
        let secondID = try #require(second["id"] as? String)
        #expect(secondID != firstID)
        #expect(lines.count == 2 && lines[1] == "internet: network changed: \(firstID.prefix(4))… → \(secondID.prefix(4))…")
        #expect(output.linesAfterQuiet().count == 2)

        // When the first comes back, it is the first network again
        try network.swapGateway()
        #expect(output.waitForLines(3).last == "internet: network changed: \(secondID.prefix(4))… → \(firstID.prefix(4))…")
        #expect(output.linesAfterQuiet().count == 3)

        // An address renewal (removed and added again) keeps the identity
        try network.ip("addr", "del", "\(TestNetwork.hostIPv4)/24", "dev", "rn0")
        try network.ip("addr", "add", "\(TestNetwork.hostIPv4)/24", "dev", "rn0")
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        #expect(output.waitForLine(after: 3) { $0.hasPrefix("internet: reachable") } != nil)
        #expect(!output.linesAfterQuiet().dropFirst(3).contains { $0.contains("network changed") })
        #expect(try self.network(in: network)["id"] as? String == firstID)
    }

    @Test func anIPv6OnlyNetworkRestsOnItsRoutersMACAndEveryTargetOnTheLinkSharesIt() throws {
        let network = try TestNetwork(ipv4: false, ipv6: true)
        defer { network.remove() }
        let internet = try self.network(in: network, gateway: TestNetwork.gatewayIPv6)
        #expect(internet["ingredients"] as? [String] == ["gatewayMAC"])
        // An on-link address (no gateway of its own) is on the same network as the internet
        let onLink = try self.network(in: network, ["2001:db8:0:1::77"], gateway: TestNetwork.gatewayIPv6)
        #expect(onLink["id"] as? String == internet["id"] as? String)
        // The host's own address leaves through lo: no network
        #expect(try ReachBinary.status(in: network, [TestNetwork.hostIPv6]).json["network"] is NSNull)
    }

    @Test func aMoveDuringACarrierLossIsNamedAndAStaticGatewayEntryOutlivesIt() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.splitGateway()
        let firstID = try #require(try self.network(in: network)["id"] as? String)
        let output = LineCollector()
        _ = try network.start([ReachBinary.path, "watch"], output: output.pipe)
        #expect(output.waitForLines(1).count == 1)

        // The cable is out while the other gateway takes over; back in, the host resolves the new one: the move is
        // named although a status line came between
        try network.gatewayIP("link", "set", "rngw", "down")
        #expect(output.waitForLine { $0.hasPrefix("internet: not reachable") } != nil)
        try network.swapGateway()
        try network.gatewayIP("link", "set", "rngw", "up")
        #expect(output.waitForLine(after: 1) { $0.hasPrefix("internet: reachable") } != nil)
        let secondID = try #require(try self.network(in: network)["id"] as? String)
        let moved = output.waitForLine { $0.contains("network changed") }
        #expect(moved == "internet: network changed: \(firstID.prefix(4))… → \(secondID.prefix(4))…")

        // A static (permanent) entry for the gateway survives carrier loss without a notification: a running watch
        // names the network again when the link is back, as a read does
        try network.ip("neigh", "replace", TestNetwork.gatewayIPv4, "lladdr", TestNetwork.secondGatewayMAC, "dev", "rn0", "nud", "permanent")
        let json = LineCollector()
        _ = try network.start([ReachBinary.path, "watch", "--json"], output: json.pipe)
        let id = { (line: String) in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]).flatMap {
                ($0["network"] as? [String: Any])?["id"] as? String
            }
        }
        #expect(json.waitForLines(1).first.flatMap(id) == secondID)
        try network.gatewayIP("link", "set", "rngw", "down")
        #expect(json.waitForLines(2).count == 2)
        try network.gatewayIP("link", "set", "rngw", "up")
        #expect(json.waitForLine(after: 2) { id($0) == secondID } != nil)
        #expect(id(json.linesAfterQuiet().last ?? "") == secondID)
    }
}
