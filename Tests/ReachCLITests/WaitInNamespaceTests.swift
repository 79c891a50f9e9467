import Foundation
import Testing
import TestSupport

/// `reach wait` against real kernel changes: it returns on the change that makes the targets reachable, and says
/// at the timeout what was still missing.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct WaitInNamespaceTests {
    /// Whether a process in `network` holds an rtnetlink socket bound to multicast groups: `reach` has subscribed,
    /// so a change from now on reaches it. The namespace's own table (`/proc/PID/net/netlink`) lists only its sockets.
    private func isSubscribed(_ process: Subprocess) -> Bool {
        guard let table = try? TestFile.text("/proc/\(process.pid)/net/netlink") else { return false }
        return table.split(separator: "\n").dropFirst().contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[1] == "0" && fields[3] != "00000000"
        }
    }

    @Test func returnsAsSoonAsTheDefaultRouteReturns() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "del", "default")
        let errors = LineCollector()
        let waiter = try network.start([ReachBinary.path, "wait", "--timeout", "30"], errors: errors.pipe)
        #expect(eventually { isSubscribed(waiter) })
        #expect(waiter.isRunning)
        let restored = Date()
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        #expect(waiter.wait() == .exited(0))
        // The kernel's message ends the wait. The bound is loose (a sanitizer's exit alone takes about a second); how
        // soon it returns is measured outside tests (Benchmarks/results/2026-11-25-ready-to-adopt.md: about 6 ms).
        #expect(Date().timeIntervalSince(restored) < 10)
        #expect(errors.lines.isEmpty)
    }

    @Test func timesOutWithExitOneNamingWhatIsStillMissing() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "del", "default")
        let result = try network.run([ReachBinary.path, "wait", "--timeout", "0.5", "internet", TestNetwork.gatewayIPv4])
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError == "reach: still waiting after 0.5 s: internet (not reachable: no route)\n")
    }

    @Test func anyReturnsOnTheFirstReachableTargetAndAllWaitsForEvery() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "del", "default")
        let targets = ["internet", TestNetwork.gatewayIPv4]
        let any = try network.run([ReachBinary.path, "wait", "--any", "--timeout", "30"] + targets)
        #expect(any.status == 0)
        let all = try network.run([ReachBinary.path, "wait", "--all", "--timeout", "0.3"] + targets)
        #expect(all.status == 1)
        #expect(all.standardError == "reach: still waiting after 0.3 s: internet (not reachable: no route)\n")
        let once = try network.run([ReachBinary.path, "wait", "--timeout", "0", TestNetwork.gatewayIPv4])
        #expect(once.status == 0)
    }

    @Test func badInputExits64() throws {
        for arguments in [
            ["wait", "--timeout", "x"], ["wait", "bad..name"], ["wait", "--any", "--all"],
            ["wait", "192.0.2.1", "--validate", "http://x/"],
        ] {
            let result = try ReachBinary.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.standardError.split(separator: "\n").count == 1)
        }
    }
}
