import Foundation
import GRDB
import NetworkReachabilityCore
import Testing
import TestSupport

@testable import NetworkReachabilityQueue

/// The durable queue's store against the real SQLite, in files of a directory each test makes and removes.
struct JobStoreTests {
    /// A fresh directory, removed when `body` ends however it ends.
    private static func inDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reach-queue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory.path)
    }

    private static func job(_ kind: String = "upload", _ payload: String = "x") -> JobStore.Submission {
        JobStore.Submission(kind: kind, payload: Array(payload.utf8))
    }

    @Test func aSubmittedJobIsInTheFileInWALModeAndSurvivesReopening() throws {
        try Self.inDirectory { directory in
            let path = directory + "/queue.sqlite"
            let id = try JobStore(path: path).submit(Self.job("upload", "reading 1"), now: 1000)
            // A second process's view: the sqlite3 of the system reads what was committed.
            let reopened = try JobStore(path: path).jobs()
            #expect(reopened.map(\.id) == [id])
            #expect(reopened.first?.payload == Array("reading 1".utf8))
            #expect(reopened.first?.state == .waiting)
            let header = try TestFile.bytes(path).prefix(20)
            #expect(header.prefix(15) == Data("SQLite format 3".utf8))
            #expect(header[18] == 2 && header[19] == 2, "file format versions 2 and 2 mean WAL")
        }
    }

    @Test func jobsRunFirstSubmittedFirstAmongThoseWhoseConditionsHold() throws {
        try Self.inDirectory { directory in
            let store = try JobStore(path: directory + "/q")
            var unmetered = Self.job("big")
            unmetered.conditions.unmetered = true
            let first = try store.submit(unmetered, now: 0)
            let second = try store.submit(Self.job("small"), now: 0)
            let third = try store.submit(Self.job("small"), now: 0)
            // On a metered link the first waits and the others go in order
            let holds: (JobConditions) -> Bool = { !$0.unmetered }
            #expect(try store.claimNext(now: 0, where: holds)?.id == second)
            try store.complete(second)
            #expect(try store.claimNext(now: 0, where: holds)?.id == third)
            try store.complete(third)
            #expect(try store.claimNext(now: 0, where: holds) == nil)
            // Unmetered again: the first runs, its attempt counted
            let claimed = try #require(try store.claimNext(now: 0, where: { _ in true }))
            #expect(claimed.id == first && claimed.state == .running && claimed.attempts == 1)
        }
    }

    @Test func failuresBackOffAsThePolicySaysEvenAcrossAReopenThenFailForGood() throws {
        try Self.inDirectory { directory in
            let path = directory + "/q"
            var submission = Self.job()
            submission.retryPolicy = try RetryPolicy(
                maximumAttempts: 3, initialDelay: .seconds(2), multiplier: 2, maximumDelay: .seconds(60))
            let id = try JobStore(path: path).submit(submission, now: 0)
            var now: Int64 = 0
            for (attempt, delay) in [(1, Int64(2000)), (2, 4000)] {
                let store = try JobStore(path: path)  // a restart between attempts
                #expect(try store.claimNext(now: now, where: { _ in true })?.attempts == attempt)
                #expect(try store.fail(id, now: now, reason: "exit 1") == .retrying)
                #expect(try store.claimNext(now: now + delay - 1, where: { _ in true }) == nil, "due only after \(delay) ms")
                now += delay
            }
            let store = try JobStore(path: path)
            #expect(try store.claimNext(now: now, where: { _ in true })?.attempts == 3)
            #expect(try store.fail(id, now: now, reason: "exit 2") == .failed)
            #expect(try store.claimNext(now: .max, where: { _ in true }) == nil)
            #expect(try store.jobs().first?.lastError == "exit 2")
        }
    }

    @Test func aRunTheWorkerDidNotFinishRunsAgainAndAGivenBackRunCostsNoAttempt() throws {
        try Self.inDirectory { directory in
            let path = directory + "/q"
            let first = try JobStore(path: path).submit(Self.job(), now: 0)
            let second = try JobStore(path: path).submit(Self.job(), now: 0)
            let worker = try JobStore(path: path)
            #expect(try worker.claimNext(now: 0, where: { _ in true })?.id == first)
            // The worker dies; the next one finds the run and queues it again, ahead of the second
            let next = try JobStore(path: path)
            #expect(try next.recoverInterruptedRuns() == 1)
            let again = try #require(try next.claimNext(now: 0, where: { _ in true }))
            #expect(again.id == first && again.attempts == 2)
            try next.giveBack(first)
            #expect(try next.jobs().first { $0.id == first }?.attempts == 1)
            #expect(try next.jobs().map(\.state) == [.waiting, .waiting])
            _ = second
        }
    }

    @Test func aKeyReplacesTheQueuedJobOrKeepsItAsAsked() throws {
        try Self.inDirectory { directory in
            let store = try JobStore(path: directory + "/q")
            var submission = Self.job("sync", "v1")
            submission.key = "settings"
            let first = try store.submit(submission, now: 0)
            submission.payload = Array("v2".utf8)
            submission.replacesQueued = false
            #expect(try store.submit(submission, now: 0) == first)
            #expect(try store.jobs().map(\.payload) == [Array("v1".utf8)])
            submission.replacesQueued = true
            let replaced = try store.submit(submission, now: 0)
            #expect(replaced > first)
            #expect(try store.jobs().map(\.payload) == [Array("v2".utf8)])
        }
    }

    @Test func atTheBoundsSubmitThrowsAndNothingIsDropped() throws {
        try Self.inDirectory { directory in
            var limits = QueueLimits()
            limits.maximumJobs = 3
            limits.maximumPayloadBytes = 10
            let store = try JobStore(path: directory + "/q", limits: limits)
            for _ in 0..<3 { _ = try store.submit(Self.job("k", "abc"), now: 0) }
            #expect(throws: QueueError.full(reason: "it holds 3 jobs, its most")) {
                try store.submit(Self.job("k", "a"), now: 0)
            }
            #expect(try store.remove(try #require(try store.jobs().first).id))
            // 6 bytes held: 5 more would pass 10, 4 more reach it
            #expect(throws: QueueError.full(reason: "5 more payload bytes would pass its 10")) {
                try store.submit(Self.job("k", "abcde"), now: 0)
            }
            _ = try store.submit(Self.job("k", "abcd"), now: 0)
            #expect(try store.jobs().map(\.payload.count) == [3, 3, 4])
        }
    }

    @Test func anExpiredJobIsFailedNotRun() throws {
        try Self.inDirectory { directory in
            let store = try JobStore(path: directory + "/q")
            var submission = Self.job()
            submission.expiresAt = 5000
            let id = try store.submit(submission, now: 0)
            #expect(try store.claimNext(now: 5000, where: { _ in true }) == nil)
            let job = try #require(try store.jobs().first)
            #expect(job.id == id && job.state == .failed && job.lastError == "expired")
        }
    }

    @Test func aFileThatIsNotAQueueIsAClearErrorAndLeftAsItIs() throws {
        try Self.inDirectory { directory in
            let path = directory + "/notes.txt"
            let text = Data(String(repeating: "not a database\n", count: 300).utf8)
            try text.write(to: URL(fileURLWithPath: path))
            #expect(throws: QueueError.notADatabase(path: path)) { try JobStore(path: path) }
            #expect(try TestFile.bytes(path) == text)
            #expect(throws: QueueError.self) { try JobStore(path: directory + "/missing/q") }
            // Another program's database is not taken over either
            let other = directory + "/other.sqlite"
            try DatabaseQueue(path: other).write { try $0.execute(sql: "CREATE TABLE readings (value REAL)") }
            #expect(throws: QueueError.notADatabase(path: other)) { try JobStore(path: other) }
            #expect(
                try DatabaseQueue(path: other).read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master") } == [
                    "readings"
                ])
        }
    }
}
