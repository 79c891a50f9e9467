import Foundation
import GRDB
import NetworkReachabilityCore
import NetworkReachabilityPOSIX
import Testing
import TestSupport

@testable import NetworkReachabilityQueue

/// A fresh directory for a test's queue, removed when `body` ends however it ends.
private func inQueueDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
    let directory = try TestFolder.make("queue-store")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    return try body(directory)
}

/// The durable queue's store against the real SQLite, in files of a directory each test makes and removes.
struct JobStoreTests {
    private static func job(_ kind: String = "upload", _ payload: String = "x") -> JobStore.Submission {
        JobStore.Submission(kind: kind, payload: Array(payload.utf8))
    }

    @Test func aSubmittedJobIsInTheFileInWALModeAndSurvivesReopening() throws {
        try inQueueDirectory { directory in
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
        try inQueueDirectory { directory in
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
        try inQueueDirectory { directory in
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
        try inQueueDirectory { directory in
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
        try inQueueDirectory { directory in
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
        try inQueueDirectory { directory in
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
        try inQueueDirectory { directory in
            let store = try JobStore(path: directory + "/q")
            var submission = Self.job()
            submission.expiresAt = 5000
            let id = try store.submit(submission, now: 0)
            #expect(try store.claimNext(now: 5000, where: { _ in true }) == nil)
            let job = try #require(try store.jobs().first)
            #expect(job.id == id && job.state == .failed && job.lastError == "expired")
            // One that would expire before it may run, or as it is submitted, is refused
            submission.notBefore = 5000
            #expect(throws: QueueError.invalidJob(reason: "it would expire before it may run")) {
                try store.submit(submission, now: 0)
            }
            submission.notBefore = nil
            #expect(throws: QueueError.self) { try store.submit(submission, now: 5000) }
        }
    }

    @Test func openersOfANewQueueAtOnceAllOpenTheOneFileTheFirstMade() throws {
        // A worker's start and a first `add` race so on every fresh device: none may meet the file half made, or
        // under two names (refused as a hard link). In each round three openers make the file at once, and three
        // open it the moment its name appears.
        try inQueueDirectory { directory in
            let (rounds, openers) = (60, 6)
            var failures: [String] = []
            for round in 0..<rounds {
                let path = directory + "/queue-\(round).sqlite"
                let errors = Locked<[String]>([])
                let ended = DispatchGroup()
                for opener in 0..<openers {
                    ended.enter()
                    // Threads of their own: one that spins never holds a pool's thread a maker needs
                    Thread.detachNewThread {
                        if opener % 2 == 1 { while access(path, F_OK) != 0 {} }
                        do { _ = try JobStore(path: path).submit(Self.job("upload", "\(opener)"), now: 1000) } catch {
                            errors.withLock { $0.append("\(error)") }
                        }
                        ended.leave()
                    }
                }
                ended.wait()
                failures += errors.withLock { $0 }
                let jobs = try JobStore(path: path).jobs()
                #expect(jobs.count == openers)
            }
            #expect(failures.isEmpty, "\(failures.count) of \(rounds * openers) failed: \(failures.prefix(3))")
            #expect(SystemFile.names(in: directory).filter { $0.contains(".new-") }.isEmpty)
        }
    }

    @Test func aFileThatIsNotAQueueIsAClearErrorAndLeftAsItIs() throws {
        try inQueueDirectory { directory in
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

/// Job control in the store: priority, `after`, retry, kept outcomes, output, pause, and a file of the last version.
struct JobControlStoreTests {
    private static func job(_ payload: String, priority: Int = 0, after: Int64? = nil, attempts: Int = 5) throws
        -> JobStore.Submission
    {
        var submission = JobStore.Submission(kind: "k", payload: Array(payload.utf8))
        submission.priority = priority
        submission.after = after
        submission.retryPolicy = try RetryPolicy(maximumAttempts: attempts)
        return submission
    }

    private static func states(_ store: JobStore) throws -> [String] {
        try store.jobs(includingDone: true).map { "\(String(decoding: $0.payload, as: UTF8.self)):\($0.state.rawValue)" }
    }

    @Test func aHigherPriorityRunsFirstAndAFollowerWaitsUntilItsJobIsDone() throws {
        try inQueueDirectory { directory in
            let store = try JobStore(path: directory + "/q")
            let low = try store.submit(try Self.job("low"), now: 0)
            let high = try store.submit(try Self.job("high", priority: 5), now: 0)
            let follower = try store.submit(try Self.job("follower", priority: 9, after: low), now: 0)
            #expect(try Self.states(store) == ["low:waiting", "high:waiting", "follower:blocked"])
            #expect(try store.claimNext(now: 0) { _ in true }?.id == high)
            try store.complete(high)
            #expect(try store.claimNext(now: 0) { _ in true }?.id == low)
            #expect(try store.claimNext(now: 0) { _ in true } == nil, "the follower waits while its job runs")
            try store.complete(low)
            #expect(try store.claimNext(now: 0) { _ in true }?.id == follower)
            // A follower of a done job waits for nothing; of a missing one it is refused
            #expect(try store.submit(try Self.job("late", after: low), now: 0) > follower)
            #expect(throws: QueueError.noSuchJob(999)) { try store.submit(try Self.job("x", after: 999), now: 0) }
        }
    }

    @Test func aJobThatFailsForGoodFailsItsFollowersAndRetryPutsThemBackInPlace() throws {
        try inQueueDirectory { directory in
            let store = try JobStore(path: directory + "/q")
            let first = try store.submit(try Self.job("a", attempts: 3), now: 0)
            let second = try store.submit(try Self.job("b", after: first), now: 0)
            _ = try store.submit(try Self.job("c", after: second), now: 0)
            _ = try store.claimNext(now: 0) { _ in true }
            // An exit status listed as permanent fails it with attempts left
            #expect(try store.fail(first, now: 5, reason: "exit status 2", exitStatus: 2, permanent: true) == .failed)
            #expect(try Self.states(store) == ["a:failed", "b:failed", "c:failed"])
            #expect(try store.jobs()[1].lastError == "job \(first) failed")
            #expect(try store.job(first)?.exitStatus == 2 && store.job(first)?.finishedAt == 5)
            #expect(throws: QueueError.self) { try store.retry([second], now: 10) }
            #expect(throws: QueueError.invalidJob(reason: "job \(first), which it would follow, failed")) {
                try store.submit(try Self.job("d", after: first), now: 0)
            }

            #expect(try store.retry(now: 10) == 3)
            #expect(try Self.states(store) == ["a:waiting", "b:blocked", "c:blocked"])
            let retried = try #require(try store.job(first))
            #expect(retried.attempts == 0 && retried.lastError == nil && retried.exitStatus == nil && retried.nextAttemptAt == 10)
            // Removing a job fails what follows it
            #expect(try store.remove(first))
            #expect(try Self.states(store) == ["b:failed", "c:failed"])
        }
    }

    @Test func doneJobsAreKeptUpToTheirLimitUntilCleanedAndAreNotCounted() throws {
        try inQueueDirectory { directory in
            var limits = QueueLimits()
            limits.keptOutcomes = 2
            limits.maximumJobs = 2
            let store = try JobStore(path: directory + "/q", limits: limits)
            for name in ["a", "b", "c"] {
                let id = try store.submit(try Self.job(name), now: 0)
                _ = try store.claimNext(now: 0) { _ in true }
                try store.complete(id, now: 100)
            }
            #expect(try Self.states(store) == ["a:done", "b:done", "c:done"], "past the kept ones, until a batch gathers")
            #expect(try store.jobs().isEmpty && store.counts()[.done] == 3)
            #expect(try store.jobs(includingDone: true).allSatisfy { $0.exitStatus == 0 && $0.finishedAt == 100 })
            // The done ones are not counted against the bound of two
            _ = try store.submit(try Self.job("d", attempts: 1), now: 0)
            _ = try store.submit(try Self.job("e"), now: 0)
            #expect(throws: QueueError.self) { try store.submit(try Self.job("f"), now: 0) }
            _ = try store.claimNext(now: 0) { _ in true }
            _ = try store.fail(4, now: 0, reason: "no")
            #expect(try store.clean() == 3)
            #expect(try Self.states(store) == ["d:failed", "e:waiting"])
            #expect(try store.clean(failed: true) == 1)
            #expect(try store.counts() == [.waiting: 1, .blocked: 0, .running: 0, .retrying: 0, .failed: 0, .done: 0])
        }
    }

    @Test func aRemovedCleanedOrReplacedJobsCommandAndOutputAreInNoFileBesideTheQueue() throws {
        try inQueueDirectory { directory in
            let store = try JobStore(path: directory + "/q")
            func secret(_ n: Int) -> String { "SECRET-\(n)-" + String(repeating: "t", count: 1000) }
            // 300 jobs, which a first removal's checkpoint moves into the file itself, then removed one by one
            let ids = try (0..<300).map { n in try store.submit(try Self.job(secret(n)), now: 0) }
            for id in ids { #expect(try store.remove(id)) }
            // A done and a failed job with output, cleaned
            for (n, done) in [(300, true), (301, false)] {
                let id = try store.submit(try Self.job(secret(n), attempts: 1), now: 0)
                _ = try store.claimNext(now: 0) { _ in true }
                try store.appendOutput(Array(secret(n + 100).utf8), to: id)
                if done { try store.complete(id) } else { _ = try store.fail(id, now: 0, reason: "no") }
            }
            #expect(try store.clean(failed: true) == 2)
            // A job replaced under its key
            var keyed = try Self.job(secret(302))
            keyed.key = "k"
            _ = try store.submit(keyed, now: 0)
            keyed.payload = Array("replacement".utf8)
            _ = try store.submit(keyed, now: 0)
            var found: [String: Int] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
                let bytes = try TestFile.bytes(directory + "/" + name)
                found[name] = bytes.indices.dropLast(6).filter { bytes[$0..<($0 + 7)].elementsEqual("SECRET-".utf8) }.count
            }
            print("secrets left beside a queue after its jobs were removed and cleaned: \(found)")
            #expect(found.values.allSatisfy { $0 == 0 } && found["q"] != nil, "\(found)")
        }
    }

    @Test func doneJobsPastTheKeptOnesGoInBatchesAndLeaveNoByteBehind() throws {
        try inQueueDirectory { directory in
            var limits = QueueLimits()
            limits.keptOutcomes = 2
            let store = try JobStore(path: directory + "/q", limits: limits)
            for n in 0..<(2 + JobStore.outcomeBatch) {
                let id = try store.submit(try Self.job("SECRET-\(n)-" + String(repeating: "t", count: 500)), now: 0)
                _ = try store.claimNext(now: 0) { _ in true }
                try store.appendOutput(Array("OUTPUT-\(n)".utf8), to: id)
                try store.complete(id, now: 100)
                // Kept until a batch has gathered past the kept ones
                #expect(try store.counts()[.done] == (n < 1 + JobStore.outcomeBatch ? n + 1 : 2), "after \(n + 1)")
            }
            let left = try store.jobs(includingDone: true).map { String(decoding: $0.payload.prefix(10), as: UTF8.self) }
            #expect(left == ["SECRET-64-", "SECRET-65-"])
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
                let text = String(decoding: try TestFile.bytes(directory + "/" + name), as: UTF8.self)
                #expect(!text.contains("SECRET-0-") && !text.contains("SECRET-63-") && !text.contains("OUTPUT-5"), "\(name)")
            }
        }
    }

    @Test func aJobKeepsTheLast64KiBOfItsAttemptsOutput() throws {
        try inQueueDirectory { directory in
            let store = try JobStore(path: directory + "/q")
            let id = try store.submit(try Self.job("a"), now: 0)
            #expect(try store.output(of: id)?.bytes == [])
            #expect(try store.output(of: 99) == nil)
            _ = try store.claimNext(now: 0) { _ in true }
            try store.appendOutput(Array(repeating: 1, count: 40 * 1024), to: id)
            try store.appendOutput(Array(repeating: 2, count: 40 * 1024), to: id)
            let output = try #require(try store.output(of: id))
            #expect(output.bytes.count == JobStore.keptOutputBytes && output.dropped == 16 * 1024)
            #expect(output.bytes.first == 1 && output.bytes.last == 2)
            // The next attempt begins its own
            try store.giveBack(id)
            _ = try store.claimNext(now: 0) { _ in true }
            #expect(try store.output(of: id)?.bytes == [] && store.output(of: id)?.dropped == 0)
            // A removed job's output goes with it, and none is written for it after
            #expect(try store.remove(id))
            try store.appendOutput([1], to: id)
            #expect(try store.output(of: id) == nil)
        }
    }

    @Test func aPausedQueueStartsNothingUntilResumedEvenReopened() throws {
        try inQueueDirectory { directory in
            let store = try JobStore(path: directory + "/q")
            _ = try store.submit(try Self.job("a"), now: 0)
            try store.setPaused(true)
            #expect(try JobStore(path: directory + "/q").claimNext(now: 0) { _ in true } == nil)
            #expect(try JobStore(path: directory + "/q", readOnly: true).isPaused())
            try store.setPaused(false)
            #expect(try store.claimNext(now: 0) { _ in true } != nil)
        }
    }

    @Test func aFileOfTheLastVersionKeepsItsJobsTheirOrderAndTheirCounts() throws {
        try inQueueDirectory { directory in
            let path = directory + "/q"
            // The last version's schema and three jobs, as its worker left them
            let old = try DatabaseQueue(path: path)
            try old.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            var migrator = DatabaseMigrator()
            migrator.registerMigration("jobs") { db in
                try db.execute(
                    sql: """
                        CREATE TABLE job (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, payload BLOB NOT NULL,
                            conditions TEXT NOT NULL, maximumAttempts INTEGER NOT NULL, initialDelay INTEGER NOT NULL,
                            multiplier REAL NOT NULL, maximumDelay INTEGER NOT NULL, key TEXT UNIQUE, state TEXT NOT NULL,
                            attempts INTEGER NOT NULL DEFAULT 0, nextAttemptAt INTEGER NOT NULL DEFAULT 0, expiresAt INTEGER,
                            lastError TEXT);
                        CREATE INDEX job_state ON job(state, id);
                        """)
            }
            migrator.registerMigration("dueAndExpiryIndexes") { db in
                try db.execute(
                    sql: """
                        CREATE INDEX job_due ON job(state, nextAttemptAt);
                        CREATE INDEX job_expiry ON job(expiresAt) WHERE expiresAt IS NOT NULL;
                        """)
            }
            try migrator.migrate(old)
            let any = String(decoding: try JSONEncoder().encode(JobConditions()), as: UTF8.self)
            let unmetered = String(decoding: try JSONEncoder().encode(JobConditions(unmetered: true)), as: UTF8.self)
            try old.write { db in
                for (conditions, state) in [(any, "waiting"), (unmetered, "running"), (any, "failed")] {
                    try db.execute(
                        sql: """
                            INSERT INTO job (kind, payload, conditions, maximumAttempts, initialDelay, multiplier,
                                maximumDelay, state) VALUES ('k', x'00', ?, 5, 1000, 2, 3600000, ?)
                            """, arguments: [conditions, state])
                }
            }
            try old.close()
            let store = try JobStore(path: path)
            #expect(try store.counts() == [.waiting: 1, .blocked: 0, .running: 1, .retrying: 0, .failed: 1, .done: 0])
            #expect(try store.recoverInterruptedRuns() == 1)
            // Both sets of conditions are claimable, in the order the jobs were added
            #expect(try store.claimNext(now: 0) { _ in true }?.id == 1)
            #expect(try store.claimNext(now: 0) { _ in true }?.id == 2)
            #expect(try store.retry([3], now: 0) == 1)
            #expect(try store.claimNext(now: 0) { _ in true }?.id == 3)
        }
    }
}
