import Foundation
import Testing
import TestSupport

@testable import NetworkReachabilityQueue

/// The store in processes killed with SIGKILL at random moments, against the real SQLite: no job a process said it
/// added is lost, no job is half there, and a worker killed any number of times runs every job at least once, in
/// order, with at most one run more per kill.
@Suite(.ownThread)
struct QueueCrashTests {
    private static let drillPath: String = {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("QueueCrashDrill").path
    }()

    @Test func aSubmitterKilledAtAnyMomentLeavesEachJobWholeOrAbsent() throws {
        let folder = try TestFolder.make("queue")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/queue.sqlite"
        var said: Set<Int64> = []
        for round in 0..<8 {
            // A submitter adds jobs, printing each id once committed, and is killed after some of them
            let output = LineCollector()
            let submitter = try Subprocess([Self.drillPath, "submit", path, "100000"], standardOutput: output.pipe)
            let printed = output.waitForLines(Int.random(in: 5...60), timeout: 60)
            submitter.send(SIGKILL)
            #expect(submitter.wait() == .signaled(SIGKILL), "round \(round)")
            said.formUnion(output.linesAfterQuiet(0.3).compactMap { Int64($0) })  // what was in the pipe at the kill too
            #expect(printed.count >= 5, "round \(round): the submitter printed \(printed.count) ids in 60 s")
        }
        // Then every id a submitter printed is there, every job is whole, and at most one per kill was not said
        let jobs = try JobStore(path: path).jobs()
        let stored = Set(jobs.map(\.id))
        #expect(said.isSubset(of: stored), "lost: \(said.subtracting(stored).sorted())")
        #expect(stored.count - said.count <= 8)
        for job in jobs {
            let payload = String(decoding: job.payload, as: UTF8.self)
            #expect(job.kind == "drill" && payload.hasPrefix("job-") && Int(payload.dropFirst(4)) != nil, "\(job)")
        }
        print("queue crash, submitters: \(said.count) ids said, \(stored.count) stored after 8 kills")
    }

    @Test func aWorkerKilledAtRandomMomentsRunsEveryJobAtLeastOnceInOrderAndAtMostOnceMorePerKill() throws {
        let folder = try TestFolder.make("queue")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/queue.sqlite"
        let log = folder + "/runs"
        let store = try JobStore(path: path)
        let ids = try (0..<2000).map { index in
            try store.submit(JobStore.Submission(kind: "drill", payload: Array("job-\(index)".utf8)), now: 0)
        }
        // When workers are killed a few milliseconds after they start, until one finishes on its own
        var kills = 0
        var finished = false
        while !finished && kills < 200 {
            let worker = try Subprocess([Self.drillPath, "work", path, log])
            usleep(useconds_t.random(in: 1_000...20_000))  // a random moment: no event marks it
            worker.send(SIGKILL)
            switch worker.wait() {
            case .exited(let status):
                #expect(status == 0)
                finished = true
            case .signaled:
                kills += 1
            }
        }
        if !finished {
            #expect(try Subprocess([Self.drillPath, "work", path, log]).wait() == .exited(0))
        }
        // Then each job ran at least once, the first runs in order, and each kill cost at most one run more
        let runs = try TestFile.text(log).split(separator: "\n").compactMap { Int64($0) }
        var firstRuns: [Int64] = []
        for run in runs where !firstRuns.contains(run) { firstRuns.append(run) }
        #expect(firstRuns == ids)
        #expect(runs.count - ids.count <= kills, "\(runs.count - ids.count) runs more after \(kills) kills")
        #expect(try JobStore(path: path).jobs().isEmpty)
        print("queue crash, worker: \(ids.count) jobs, \(kills) kills, \(runs.count - ids.count) runs more")
    }
}
