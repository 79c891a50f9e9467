import Foundation
import Testing
import TestSupport

/// The test support's own clean-up: what a test process killed before its `defer` ran leaves behind is swept by the
/// next test process.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"))
struct StaleTestNetworksInNamespaceTests {
    @Test func aNamespaceIsOwnedByThePidInItsName() {
        #expect(StaleTestNetworks.owner(of: "nrt-4242-7") == 4242)
        #expect(StaleTestNetworks.owner(of: "nrt-4242-7-gw") == 4242)
        #expect(StaleTestNetworks.owner(of: "nrt-4242") == nil)
        #expect(StaleTestNetworks.owner(of: "nrt-4242-7-x") == nil)
        #expect(StaleTestNetworks.owner(of: "nrt-pid-7") == nil)
        #expect(StaleTestNetworks.owner(of: "nrbench-4242") == nil)
    }

    @Test func theNamespacesOfAnEndedProcessGoWithWhatRunsInThemAndThoseOfALivingOneStay() throws {
        // Given a process that has ended, and one that lives
        let ended = try Subprocess(["true"])
        _ = ended.wait()
        let living = try Subprocess(["sleep", "60"])
        let stale = "nrt-\(ended.pid)-1"
        let kept = "nrt-\(living.pid)-1"
        let names = [stale, "\(stale)-gw", kept]
        var inside: Subprocess?
        defer {
            for process in [living, inside].compactMap({ $0 }) {
                process.send(SIGKILL)
                _ = process.wait()
            }
            for name in names { _ = try? Command.run(["ip", "netns", "del", name]) }
            try? FileManager.default.removeItem(atPath: "/etc/netns/\(stale)")
        }
        // And namespaces named for each, a process inside the ended one's, and its /etc/netns directory
        for name in names { try Command.run(["ip", "netns", "add", name], check: true) }
        inside = try Subprocess(["ip", "netns", "exec", stale, "sleep", "60"])
        try FileManager.default.createDirectory(atPath: "/etc/netns/\(stale)", withIntermediateDirectories: true)
        try waitUntilInside(stale)
        // When the stale networks are swept
        StaleTestNetworks.sweep()
        // Then the ended process's namespaces, the process in one and its directory are gone
        let left = try Command.run(["ip", "netns", "list"], check: true).lines.compactMap { $0.split(separator: " ").first }
        #expect(!left.contains(Substring(stale)))
        #expect(!left.contains(Substring("\(stale)-gw")))
        #expect(try endsWithin(5, inside) == .signaled(SIGKILL))
        #expect(!FileManager.default.fileExists(atPath: "/etc/netns/\(stale)"))
        // And the living process's namespace stays
        #expect(left.contains(Substring(kept)))
    }

    /// How `process` ended, if it ends within `seconds`.
    private func endsWithin(_ seconds: Int, _ process: Subprocess?) throws -> Subprocess.Termination? {
        let process = try #require(process)
        var waits = 0
        while process.isRunning {
            guard waits < seconds * 100 else { return nil }
            waits += 1
            usleep(10_000)
        }
        return process.wait()
    }

    /// Waits until the kernel lists a process in `namespace`: `ip netns exec` has joined it.
    private func waitUntilInside(_ namespace: String) throws {
        for _ in 0..<500 {
            if try !Command.run(["ip", "netns", "pids", namespace], check: true).lines.isEmpty { return }
            usleep(10_000)
        }
        Issue.record("no process joined \(namespace)")
    }
}
