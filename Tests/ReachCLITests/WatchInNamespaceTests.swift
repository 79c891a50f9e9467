import Foundation
import Testing
import TestSupport

/// `reach watch` against real kernel changes, inside namespaces the tests build and remove.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct WatchInNamespaceTests {
    private func field(_ line: String, _ key: String) -> String? {
        guard let data = line.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object[key] as? String
    }

    @Test func initialStateComesOnceThenExactlyOneLinePerChangeAndNoneForNoChange() throws {
        // Given an IPv4-only network, where each change below is one kernel message
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let output = LineCollector()
        let watcher = try network.start([ReachBinary.path, "watch", "--json"], output: output.pipe)
        // Then the initial state comes once
        #expect(output.waitForLines(1).count == 1)
        #expect(output.linesAfterQuiet().count == 1)
        #expect(field(output.lines[0], "status") == "reachable")

        // When the default route goes, exactly one line says so
        try network.ip("route", "del", "default")
        #expect(output.waitForLines(2).count >= 2)
        #expect(output.linesAfterQuiet().count == 2)
        #expect(field(output.lines[1], "status") == "notReachable")

        // When it comes back, exactly one line
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        #expect(output.waitForLines(3).count >= 3)
        #expect(output.linesAfterQuiet().count == 3)
        #expect(field(output.lines[2], "status") == "reachable")

        // When a change leaves the flags and path as they are, no line
        try network.ip("route", "add", "198.51.100.0/24", "via", TestNetwork.gatewayIPv4)
        try network.ip("route", "replace", "default", "via", TestNetwork.gatewayIPv4)
        #expect(output.linesAfterQuiet().count == 3)

        // When the gateway's end loses carrier, and gets it back: one line each
        try network.gatewayIP("link", "set", "rngw", "down")
        #expect(output.waitForLines(4).count >= 4)
        #expect(output.linesAfterQuiet().count == 4)
        #expect(field(output.lines[3], "flagsString") == "-R -c-----")
        try network.gatewayIP("link", "set", "rngw", "up")
        #expect(output.waitForLines(5).count >= 5)
        #expect(output.linesAfterQuiet().count == 5)
        #expect(field(output.lines[4], "flagsString") == "-R -------")

        // And SIGTERM ends it with exit 0
        watcher.send(SIGTERM)
        #expect(watcher.wait() == .exited(0))
    }

    @Test func takingTheHostInterfaceDownEndsNotReachableAndSIGINTExitsZero() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        let output = LineCollector()
        let watcher = try network.start(
            [ReachBinary.path, "watch", "internet", TestNetwork.gatewayIPv4, "--json"], output: output.pipe)
        #expect(output.waitForLines(2).count == 2)
        // The kernel announces the link before it flushes routes: one or two lines per target, final state right
        try network.ip("link", "set", "rn0", "down")
        let lines = output.waitForLines(4)
        let settled = output.linesAfterQuiet()
        #expect(lines.count >= 4)
        for target in ["internet", TestNetwork.gatewayIPv4] {
            let last = settled.last { field($0, "target") == target }
            #expect(last.flatMap { field($0, "status") } == "notReachable")
        }
        watcher.send(SIGINT)
        #expect(watcher.wait() == .exited(0))
    }

    @Test func oneInvalidTargetStopsWatchBeforeAnyLineWithExit64() throws {
        let result = try ReachBinary.run(["watch", "internet", "192.0.2.300", "--json"])
        #expect(result.status == 64)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.split(separator: "\n").count == 1)
    }
}
