import Foundation
import Testing
import TestSupport

/// The test support's own clean-up: what a test process killed before its `defer` ran leaves behind is swept by the
/// next test process.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
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
        // The sweep another test's first network makes would take this test's stale namespace from under it
        TestNetwork.sweepStaleNetworksOnce()
        // Given a process that has ended, and one that lives
        let ended = try Subprocess(["true"])
        _ = ended.wait()
        let living = try Subprocess(["sleep", "60"])
        let stale = "nrt-\(ended.pid)-1"
        let kept = "nrt-\(living.pid)-1"
        let names = [stale, "\(stale)-gw", kept]
        let etcDirectory = TestNetwork.etcDirectory(of: stale)
        var inside: Subprocess?
        defer {
            for process in [living, inside].compactMap({ $0 }) {
                process.send(SIGKILL)
                _ = process.wait()
            }
            for name in names { _ = try? Command.run(["ip", "netns", "del", name]) }
            try? FileManager.default.removeItem(atPath: etcDirectory)
        }
        // And namespaces named for each, a process inside the ended one's, and its /etc/netns directory
        for name in names { try Command.run(["ip", "netns", "add", name], check: true) }
        inside = try Subprocess(["ip", "netns", "exec", stale, "sleep", "60"])
        try FileManager.default.createDirectory(atPath: etcDirectory, withIntermediateDirectories: true)
        let joined = eventually(timeout: 5) {
            (try? Command.run(["ip", "netns", "pids", stale], check: true))?.lines.isEmpty == false
        }
        try #require(joined, "no process joined \(stale)")
        // When the stale networks are swept
        StaleTestNetworks.sweep()
        // Then the ended process's namespaces, the process in one and its directory are gone
        let left = try Command.run(["ip", "netns", "list"], check: true).lines.compactMap { $0.split(separator: " ").first }
        #expect(!left.contains(Substring(stale)))
        #expect(!left.contains(Substring("\(stale)-gw")))
        let process = try #require(inside)
        #expect(eventually(timeout: 5) { !process.isRunning } && process.wait() == .signaled(SIGKILL))
        #expect(!FileManager.default.fileExists(atPath: etcDirectory))
        // And the living process's namespace stays
        #expect(left.contains(Substring(kept)))
    }
}
