import Foundation
import Testing
import TestSupport

/// Host-name targets through `reach`, with a real DNS server (dnsmasq) in the gateway namespace and the
/// host namespace's own `/etc/hosts` and `resolv.conf` (which `ip netns exec` mounts over `/etc`).
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct HostNamesInNamespaceTests {
    private func host(_ json: [String: Any]) -> [String: Any] { json["host"] as? [String: Any] ?? [:] }

    private func decode(_ line: String) -> [String: Any] {
        (line.data(using: .utf8).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]) ?? [:]
    }

    @Test func nameFromTheNamespacesHostsFileResolvesWithoutDNS() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv4)  // nothing listens there
        try network.setHostsFile(["\(TestNetwork.gatewayIPv4) gw.hosts.test"])
        let (exit, json) = try ReachBinary.status(in: network, ["gw.hosts.test"])
        #expect(exit == 0)
        #expect(json.string("target") == "gw.hosts.test")
        #expect(json.string("flagsString") == "-R ------d")
        #expect(host(json)["resolution"] as? String == "resolved")
        #expect(host(json)["addresses"] as? [String] == [TestNetwork.gatewayIPv4])
        #expect(host(json)["chosenAddress"] as? String == TestNetwork.gatewayIPv4)
    }

    @Test func internationalizedNameResolvesThroughItsPunycodeForm() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv4)
        try network.setHostsFile(["\(TestNetwork.gatewayIPv4) xn--bcher-kva.test"])
        let (exit, json) = try ReachBinary.status(in: network, ["bücher.test"])
        #expect(exit == 0)
        #expect(host(json)["chosenAddress"] as? String == TestNetwork.gatewayIPv4)
    }

    @Test func editedHostsFileIsPickedUpWithoutANetworkChange() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv4)
        try network.setHostsFile(["198.51.100.10 edited.test"])
        let output = LineCollector()
        _ = try network.start([ReachBinary.path, "watch", "edited.test", "--json"], output: output.pipe)
        #expect(eventually { host(decode(output.lines.last ?? ""))["chosenAddress"] as? String == "198.51.100.10" })
        // When /etc/hosts changes (written in place, as the bind mount requires), inotify triggers a new resolution
        try network.setHostsFile(["\(TestNetwork.gatewayIPv4) edited.test"])
        #expect(eventually { host(decode(output.lines.last ?? ""))["chosenAddress"] as? String == TestNetwork.gatewayIPv4 })
        #expect(decode(output.lines.last ?? "")["flagsString"] as? String == "-R ------d")
    }

    @Test func aWatchThatResolvedANameAndLookedForDNS64KeepsNoThreadBeyondItsOwn() throws {
        // Given a watch of a name from the hosts file and of an IPv4 address
        let network = try TestNetwork()
        defer { network.remove() }
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv4)  // nothing listens there
        try network.setHostsFile(["\(TestNetwork.gatewayIPv4) sleepy.test"])
        let output = LineCollector()
        let watcher = try network.start(
            [
                "env", "DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/nrt-absent-bus", ReachBinary.path, "watch", "sleepy.test",
                "198.51.100.1", "--json",
            ],
            output: output.pipe)
        #expect(eventually { output.lines.contains { host(decode($0))["resolution"] as? String == "resolved" } })
        // And the network turned IPv6-only, so the IPv4 address makes the monitor look for DNS64
        try network.ip("-4", "route", "del", "default")
        #expect(
            eventually {
                output.lines.contains {
                    decode($0)["target"] as? String == "198.51.100.1" && decode($0)["status"] as? String == "notReachable"
                }
            })
        // Then, once that work is done, only the main thread, the monitor's, the radio-details reader's (waiting for
        // a system bus to appear) and the network settings' (waiting on inotify) are left: the resolver's threads ended, and no Dispatch pool was started (its monitor would wake the process every second from then on).
        // (Wake-ups themselves are not counted here: other tests' namespaces coming and going wake the monitor.)
        #expect(eventually(timeout: 5) { (try? Self.threadNames(of: watcher.pid)) == Self.watchThreadNames })
        #expect(try Self.threadNames(of: watcher.pid) == Self.watchThreadNames)
    }

    /// The threads of an idle `reach watch`, sorted: the main one, the monitor's, the radio-details reader's and the
    /// network settings' reader's, plus, under ThreadSanitizer, the background thread its runtime starts with the first
    /// `pthread_create` (it keeps the process's name).
    private static let watchThreadNames =
        ((Sanitizer.current == "thread" ? ["reach"] : []) + ["reach", "reachability", "radio-details", "net-settings"]).sorted()

    /// The names of `pid`'s threads, sorted.
    private static func threadNames(of pid: pid_t) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").map { task in
            try TestFile.text("/proc/\(pid)/task/\(task)/comm")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }.sorted()
    }

    @Test func nameFromDNSWithAAndAAAARecordsReportsBothAndTheChosenOne() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        try network.startDNS(on: TestNetwork.gatewayIPv4, records: ["198.51.100.10 both.test", "2001:db8:7::10 both.test"])
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv4)
        let (exit, json) = try ReachBinary.status(in: network, ["both.test"])
        #expect(exit == 0)
        #expect(json.string("status") == "reachable")
        let addresses = try #require(host(json)["addresses"] as? [String])
        #expect(Set(addresses) == ["198.51.100.10", "2001:db8:7::10"])
        #expect(host(json)["chosenAddress"] as? String == addresses.first)  // getaddrinfo's (RFC 6724) order
        #expect(json.bool("supportsIPv4") == true)
        #expect(json.bool("supportsIPv6") == true)
    }

    @Test func aaaaOnlyNameIsReachableOverAnIPv6OnlyNetwork() throws {
        let network = try TestNetwork(ipv4: false, ipv6: true)
        defer { network.remove() }
        try network.startDNS(on: TestNetwork.gatewayIPv6, records: ["2001:db8:7::20 six.test"])
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv6)
        let (exit, json) = try ReachBinary.status(in: network, ["six.test"])
        #expect(exit == 0)
        #expect(host(json)["chosenAddress"] as? String == "2001:db8:7::20")
        #expect(json.string("gateway") == TestNetwork.gatewayIPv6)
        #expect(json.bool("supportsIPv6") == true)
        #expect(json.bool("supportsIPv4") == false)
    }

    @Test func nxdomainIsNotReachableAndSaysResolutionFailed() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        try network.startDNS(on: TestNetwork.gatewayIPv4, records: ["198.51.100.10 known.test"])
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv4)
        let (exit, json) = try ReachBinary.status(in: network, ["missing.test"])
        #expect(exit == 1)
        #expect(json.string("status") == "notReachable")
        #expect(host(json)["resolution"] as? String == "failed")
        #expect(json.string("reason") == "resolutionFailed")
        #expect((host(json)["failure"] as? String)?.isEmpty == false)
        #expect(host(json)["addresses"] as? [String] == [])
    }

    @Test func silentDNSServerGivesPendingAtOnceThenTimedOut() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        try network.startSilentDNS(on: TestNetwork.gatewayIPv4)
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv4, timeoutSeconds: 5, attempts: 2)
        // watch answers at once with unknown/pending, then timedOut after our 1 s, not glibc's 10 s
        let output = LineCollector()
        _ = try network.start(
            [ReachBinary.path, "watch", "slow.test", "--json", "--resolution-timeout", "1"], output: output.pipe)
        let lines = output.waitForLines(2, timeout: 8)
        #expect(lines.count == 2, "\(lines)")
        let first = decode(lines.first ?? "")
        #expect(first["status"] as? String == "unknown")
        #expect(host(first)["resolution"] as? String == "pending")
        #expect(first["reason"] as? String == "resolutionPending")
        let second = decode(lines.last ?? "")
        #expect(second["status"] as? String == "notReachable")
        #expect(host(second)["resolution"] as? String == "timedOut", "\(lines)")
        #expect(second["reason"] as? String == "resolutionTimedOut")
        // status waits for the first resolution, bounded by the timeout
        let (exit, json) = try ReachBinary.status(in: network, ["slow.test", "--resolution-timeout", "1"])
        #expect(exit == 1)
        #expect(host(json)["resolution"] as? String == "timedOut")
    }

    @Test func changedRecordIsUsedAfterTheNextNetworkChange() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.startDNS(on: TestNetwork.gatewayIPv4, records: ["198.51.100.10 moving.test"])
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv4)
        let output = LineCollector()
        _ = try network.start([ReachBinary.path, "watch", "moving.test", "--json"], output: output.pipe)
        let resolved = output.waitForLines(2)
        #expect(host(decode(resolved.last ?? ""))["chosenAddress"] as? String == "198.51.100.10")
        // When the record changes (and the server has taken it in), then the network changes
        try network.setDNSRecords(["\(TestNetwork.gatewayIPv4) moving.test"])
        #expect(
            eventually {
                (try? network.run(["getent", "ahostsv4", "moving.test"]).standardOutput.contains(TestNetwork.gatewayIPv4)) == true
            })
        try network.ip("route", "add", "203.0.113.0/24", "via", TestNetwork.gatewayIPv4)
        // Then the new address is used
        #expect(
            eventually {
                host(decode(output.lines.last ?? ""))["chosenAddress"] as? String == TestNetwork.gatewayIPv4
            })
        #expect(decode(output.lines.last ?? "")["flagsString"] as? String == "-R ------d")
    }

    @Test func ipLiteralsBypassDNS() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        try network.startSilentDNS(on: TestNetwork.gatewayIPv4)
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv4, timeoutSeconds: 5, attempts: 2)
        let (exit, json) = try ReachBinary.status(in: network, [TestNetwork.gatewayIPv4])
        #expect(exit == 0)
        #expect(json["host"] == nil)
    }

    @Test(arguments: [
        "", "a..b.test", String(repeating: "a", count: 64) + ".test",
        Array(repeating: String(repeating: "a", count: 60), count: 5).joined(separator: "."), "exa mple.test", "a@b.test",
        "a_b!.test", "bad.123",
    ])
    func invalidNamesExit64WithOneLine(name: String) throws {
        let result = try ReachBinary.run(["status", name])
        #expect(result.status == 64)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.split(separator: "\n").count == 1)
        let watch = try ReachBinary.run(["watch", "internet", name])
        #expect(watch.status == 64)
        #expect(watch.standardOutput.isEmpty)
    }
}
