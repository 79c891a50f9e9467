import Foundation
import Testing
import TestSupport

/// Objects created, started, stopped and released by the thousand on several threads at once, in a process of
/// their own so its descriptors and memory can be counted exactly.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct LifecycleStormInNamespaceTests {
    private static let stormPath: String = {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("LifecycleStorm").path
    }()

    @Test func tenThousandCyclesOnFourThreadsLeaveNoDescriptorAndFlatMemoryAndNeverDeadlock() throws {
        // Given a reachable network
        let network = try TestNetwork(ipv4: true, ipv6: true)
        defer { network.remove() }
        let output = LineCollector()

        // When 10,000 objects are created, started and stopped or released (some inside their own callbacks)
        let storm = try network.start([Self.stormPath, "10000", "4"], output: output.pipe)
        let finished = eventually(timeout: 300) { !storm.isRunning }  // about 2 minutes under TSan
        if !finished { storm.send(SIGKILL) }
        #expect(finished, "the storm did not finish in 300 s: a deadlock")
        #expect(storm.wait() == .exited(0))

        // Then every descriptor was closed, once, and memory stayed flat (within 2 MiB)
        let line = try #require(output.waitForLines(1).first)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(report["cycles"] as? Int == 10_000)
        #expect(report["descriptorsAfter"] as? Int == report["descriptorsBefore"] as? Int)
        #expect(report["closesOfUnopenedDescriptors"] as? Int == 0, "a descriptor was closed twice")
        // Under a sanitizer resident memory is mostly the sanitizer's own bookkeeping, which grows with every
        // thread ever made; leaks are then LeakSanitizer's to find (it fails the storm's exit status).
        if report["sanitizer"] as? String == "none" {
            let growth = (report["residentAfterKiB"] as? Int ?? .max) - (report["residentBeforeKiB"] as? Int ?? 0)
            #expect(growth < 2048, "resident memory grew by \(growth) KiB")
        }
        print("lifecycle storm: \(line)")
    }
}
