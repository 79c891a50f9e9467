import Foundation
import Testing
import TestSupport

/// A host whose `/etc/resolv.conf` names only systemd-resolved's stub (Ubuntu, Fedora, Arch, most desktops), with
/// Debian's real `systemd-resolved`: `supportsDNS` and `reach nat64` speak of the servers it sends to, not of the stub.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread(timeLimit: .seconds(120)))
struct SystemdResolvedInNamespaceTests {
    @Test func supportsDNSFollowsTheUpstreamServersSystemdResolvedHasNotItsStub() throws {
        // Given systemd-resolved with no server of its own, and /etc/resolv.conf naming its stub
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let resolved = try SystemdResolved(in: network)
        defer { resolved.remove() }
        #expect(resolved.upstreamFile.contains("# No DNS servers known."))

        // Then the internet is reachable, with no DNS, and `reach nat64` names no server
        let status = try resolved.run([ReachBinary.path, "status", "--json"])
        let internet = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
        #expect(internet.string("status") == "reachable" && internet.bool("supportsDNS") == false)
        let nat64 = try Self.nat64(resolved)
        #expect(nat64["nameServers"] as? [String] == [] && nat64.bool("systemdResolved") == true)

        // When a watch runs and the uplink gets a server (as NetworkManager or networkd give one), it says so at once
        let output = LineCollector()
        _ = try resolved.start([ReachBinary.path, "watch", "--json"], output: output.pipe)
        #expect(output.waitForLine { $0.contains("\"supportsDNS\":false") } != nil)
        let first = output.lines.count
        try resolved.setDNS([TestNetwork.gatewayIPv4], on: "rn0")
        #expect(output.waitForLine(after: first) { $0.contains("\"supportsDNS\":true") } != nil)
        #expect(try Self.nat64(resolved)["nameServers"] as? [String] == [TestNetwork.gatewayIPv4])
        let text = try resolved.run([ReachBinary.path, "nat64", "--wait", "0.1"]).standardOutput
        #expect(text.contains("name servers: \(TestNetwork.gatewayIPv4) (systemd-resolved's upstream servers)"))

        // And when the server goes, so does DNS
        let second = output.lines.count
        try resolved.setDNS([], on: "rn0")
        #expect(output.waitForLine(after: second) { $0.contains("\"supportsDNS\":false") } != nil)
    }

    @Test func aStoppedSystemdResolvedIsNoDNSThoughItsFileNamesServers() throws {
        // Given systemd-resolved with a server on the uplink, and a watch that says the host has DNS
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let resolved = try SystemdResolved(in: network)
        defer { resolved.remove() }
        try resolved.setDNS([TestNetwork.gatewayIPv4], on: "rn0")
        let output = LineCollector()
        _ = try resolved.start([ReachBinary.path, "watch", "--json"], output: output.pipe)
        #expect(output.waitForLine { $0.contains("\"supportsDNS\":true") } != nil)
        let first = output.lines.count

        // When it stops, leaving its upstream file behind
        let stopping = Date()
        resolved.stop()
        #expect(resolved.upstreamFile.contains("nameserver \(TestNetwork.gatewayIPv4)"))

        // Then the watch says there is no DNS within a second, and a read and `reach nat64` say so too
        let line = output.waitForLine(after: first, timeout: 10) { $0.contains("\"supportsDNS\":false") }
        let seconds = Date().timeIntervalSince(stopping)
        print("systemd-resolved stopped: supportsDNS false after \(seconds) s")
        #expect(line != nil && seconds < 1, "after \(seconds) s")
        let status = try resolved.run([ReachBinary.path, "status", "--json"])
        let internet = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
        #expect(internet.bool("supportsDNS") == false)
        #expect(try Self.nat64(resolved)["nameServers"] as? [String] == [])

        // When something binds its socket and listens only 300 ms later, as systemd-resolved does for a moment at
        // each start (a connection between the two is refused), the watch says there is DNS once it listens, and
        // none when it goes
        let binding = output.lines.count
        // (counted from the listen, not from Python's start, which a loaded machine slows)
        let listenerSays = LineCollector()
        let lateListener = try resolved.start(["python3", "-u", "-c", Self.lateListener], output: listenerSays.pipe)
        #expect(listenerSays.waitForLine(timeout: 10) { $0 == "listening" } != nil)
        let bound = Date()
        let listened = output.waitForLine(after: binding, timeout: 10) { $0.contains("\"supportsDNS\":true") }
        let listenSeconds = Date().timeIntervalSince(bound)
        print("a socket listened on 0.3 s after it was bound: supportsDNS true \(listenSeconds) s after it listened")
        #expect(listened != nil && listenSeconds < 1, "after \(listenSeconds) s")
        let listening = output.lines.count
        lateListener.send(SIGTERM)
        _ = lateListener.wait()
        #expect(output.waitForLine(after: listening, timeout: 10) { $0.contains("\"supportsDNS\":false") } != nil)

        // When it starts again, its files as it left them, the watch says there is DNS again within a second
        let second = output.lines.count
        try resolved.restart()
        let started = Date()  // it owns its name on the bus
        let again = output.waitForLine(after: second, timeout: 10) { $0.contains("\"supportsDNS\":true") }
        let restartSeconds = Date().timeIntervalSince(started)
        print("systemd-resolved restarted: supportsDNS true \(restartSeconds) s after it took its name")
        #expect(again != nil && restartSeconds < 1, "after \(restartSeconds) s")
    }

    /// Binds systemd-resolved's socket, listens 300 ms later and holds it a minute.
    private static let lateListener = """
        import os, socket, time
        path = "/run/systemd/resolve/io.systemd.Resolve"
        if os.path.exists(path): os.unlink(path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        time.sleep(0.3)
        listener.listen(16)
        print("listening")
        time.sleep(60)
        """

    private static func nat64(_ resolved: SystemdResolved) throws -> [String: Any] {
        let result = try resolved.run([ReachBinary.path, "nat64", "--json", "--wait", "0.1"])
        return try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    }
}
