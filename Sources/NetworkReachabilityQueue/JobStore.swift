import Foundation
import GRDB
import NetworkReachabilityCore
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The durable queue's jobs in an SQLite database (GRDB, WAL mode): every change is one transaction, committed before
/// the call returns, so a process killed at any moment leaves each job either whole or absent, and never loses one
/// that a call said was added.
///
/// Several processes may open one file (scripts add while a worker runs); only the worker calls
/// ``recoverInterruptedRuns()``, ``claimNext(now:where:)`` and what follows a claim.
package final class JobStore: Sendable {
    /// What a job is when it is submitted.
    package struct Submission: Sendable {
        package var kind: String
        package var payload: [UInt8]
        package var conditions = JobConditions()
        package var retryPolicy = RetryPolicy.standard
        /// With a key, a job already queued under it is replaced (`replacesQueued`), or this one is dropped.
        package var key: String?
        package var replacesQueued = true
        /// Milliseconds since 1970 after which the job is failed rather than run.
        package var expiresAt: Int64?

        package init(kind: String, payload: [UInt8]) {
            self.kind = kind
            self.payload = payload
        }
    }

    /// The file, as given.
    package let path: String
    private let limits: QueueLimits
    /// The file, opened and checked before SQLite opens it, and held until SQLite's connections are closed.
    package let file: QueueFileHandle
    private let database: any DatabaseWriter
    /// Whether the file was opened only to be read (`reach queue list`): nothing is created, migrated or written.
    private let readOnly: Bool

    /// Space kept free beside the file by its worker (`PATH.reserve`), given up when a write meets a full disk: a run's
    /// end and a removal commit however full the disk is, and a worker's restart recovers its runs.
    package static let reserveBytes = 256 * 1024

    /// Opens the queue in `path`, creating the file when it does not exist (unless `readOnly`).
    ///
    /// The database file is opened by ``QueueFileHandle`` first (no link followed, a regular file with one name), and
    /// then only by SQLite: closing any descriptor of a file drops every POSIX lock the process holds on it, SQLite's
    /// included, and another process may then take the write-ahead log from under this one (commits were lost that
    /// way, in a test of eight processes creating one file).
    ///
    /// - Throws: ``QueueError/notADatabase(path:)`` for a file that is not an SQLite database or holds other tables,
    ///   ``QueueError/damaged(path:reason:)`` for a damaged one (both are left as they are),
    ///   ``QueueError/unsafe(path:reason:)`` for a link or a file that is not regular, ``QueueError/full(reason:)``
    ///   when the disk is too full to create it, ``QueueError/cannotOpen(path:reason:)`` when it cannot be opened or
    ///   created.
    package init(path: String, limits: QueueLimits = QueueLimits(), readOnly: Bool = false) throws(QueueError) {
        self.path = path
        self.limits = limits
        self.readOnly = readOnly
        if !readOnly && !SystemFile.exists(path) {
            try Self.checkMayCreate(path)
            try Self.create(path)
        }
        file = try QueueFileHandle(path: path, writable: !readOnly)
        try file.checkFilesBeside()
        // Opening needs a little space (SQLite's shared-memory index and log): on a full disk the worker's reserve is
        // given up for it, and a failure to open is the disk's being full.
        let diskIsFull = (SystemFile.freeBytes(beside: path) ?? Int.max) < Self.openingBytes
        if diskIsFull && !readOnly { _ = unlink(path + ".reserve") }
        do {
            let (isEmpty, isMigrated) = try Self.checkIsOurs(path)
            if readOnly {
                var configuration = Self.configuration
                configuration.readonly = true
                if isEmpty {  // no jobs, and nothing is written to make the schema
                    let memory = try DatabaseQueue()
                    try Self.migrator.migrate(memory)
                    database = memory
                } else {
                    database = try DatabaseQueue(path: path, configuration: configuration)
                }
            } else {
                database = try DatabasePool(path: path, configuration: Self.configuration)
                // A file whose schema is whole is not migrated: a damaged one is then never written by opening it.
                if !isMigrated { try Self.migrator.migrate(database) }
            }
        } catch {
            if (SystemFile.freeBytes(beside: path) ?? Int.max) < Self.openingBytes, !(error is QueueError) {
                throw .full(reason: "the disk is full")
            }
            throw Self.queueError(error, path: path, opening: true)
        }
    }

    /// The free space below which opening the file counts the disk as full.
    private static let openingBytes = 64 * 1024

    /// Checks, for a worker before anything opens the file at `path` (if it exists), that it may run its jobs
    /// (``QueueFileHandle/checkRunnable()``): a refused file gets no journal beside it.
    package static func checkRunnable(_ path: String) throws(QueueError) {
        guard SystemFile.exists(path) else { return }
        let file = try QueueFileHandle(path: path, writable: true)
        try file.checkRunnable()
    }

    /// Refuses to make the file in a directory another user owns (the unit's state directory, say): the file would be
    /// this user's, and the directory's user, who runs the worker, could not run it. The worker makes it first.
    private static func checkMayCreate(_ path: String) throws(QueueError) {
        var status = stat()
        let directory = QueueFileHandle.directory(of: path)
        guard stat(directory, &status) == 0 else { return }  // creating it says why
        let user = geteuid()
        guard status.st_uid == user || status.st_uid == 0 || user == 0 else {
            throw .cannotOpen(
                path: path,
                reason: "it does not exist, and its directory is user \(status.st_uid)'s: start the worker first, which makes it")
        }
    }

    /// Every connection's set-up.
    private static var configuration: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)  // another process's write transaction, never held for long
        configuration.prepareDatabase { db in
            // A commit is on the disk before it returns, power cuts included (WAL's default, NORMAL, may lose the
            // last commits when the power goes, which a field device's reboot is).
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // A done job's command line (often with a token) is overwritten, not left in a free page.
            try db.execute(sql: "PRAGMA secure_delete = ON")
            // The write-ahead log is cut back to 4 MiB at each checkpoint: a reader that held it back while the
            // worker ran thousands of jobs leaves no log of a hundred megabytes behind.
            try db.execute(sql: "PRAGMA journal_size_limit = 4194304")
        }
        return configuration
    }

    /// Makes a new queue's file whole, in WAL mode with its schema, beside `path` under a name of its own, and links it
    /// into place: processes that create one file at once never meet half of it, and the first to link wins (the
    /// others' files are removed, and they open the winner's). It is made with mode 0660 less the umask, which its
    /// journals take: its user and, where the umask allows, its group may add jobs; others may not read it.
    private static func create(_ path: String) throws(QueueError) {
        removeAbandonedBuilds(of: path)
        let building = "\(path).new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { SystemFile.removeWithJournals(building) }
        let made = open(building, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o660)
        guard made >= 0 else {
            if errno == ENOSPC { throw .full(reason: "the disk is full") }
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        close(made)
        do {
            let pool = try DatabasePool(path: building, configuration: configuration)
            try migrator.migrate(pool)
            try pool.close()
        } catch {
            throw queueError(error, path: path, opening: true)
        }
        guard link(building, path) == 0 || errno == EEXIST else {
            if errno == ENOSPC { throw .full(reason: "the disk is full") }
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Removes the files a creation killed before it ended left beside `path` (`PATH.new-PID-N` and its journals),
    /// those whose process is gone.
    private static func removeAbandonedBuilds(of path: String) {
        let directory = QueueFileHandle.directory(of: path)
        let prefix = String(path[(path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex)...]) + ".new-"
        for name in SystemFile.names(in: directory) where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]) else { continue }
            let journal = QueueFileHandle.journalSuffixes.contains { rest.hasSuffix($0) }
            if !journal && kill(pid, 0) != 0 && errno == ESRCH {
                SystemFile.removeWithJournals(directory + "/" + name)
            }
        }
    }

    /// Returns whether the file at `path` is empty and whether its schema is whole, and throws ``QueueError/notADatabase(path:)`` unless it is this
    /// queue's (or empty): an SQLite database in WAL mode with no table but the queue's. A file that does not begin as
    /// an SQLite database is refused before SQLite opens it; one that does is read through a connection that writes
    /// nothing (a pool would switch a database in rollback mode to WAL, which writes its header), and the journal
    /// files that reading made beside a refused file are removed: another program's file is left as it was.
    private static func checkIsOurs(_ path: String) throws -> (isEmpty: Bool, isMigrated: Bool) {
        guard let header = SystemFile.prefix(path, count: 100) else { throw QueueError.notADatabase(path: path) }
        if header.isEmpty { return (true, false) }
        guard header.count == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw QueueError.notADatabase(path: path)
        }
        let journals = QueueFileHandle.journalSuffixes.filter { !SystemFile.exists(path + $0) }
        do {
            var readOnly = Configuration()
            readOnly.readonly = true
            readOnly.busyMode = .timeout(10)
            let (mode, tables, migrations) = try DatabaseQueue(path: path, configuration: readOnly).read { db in
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                return (
                    try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "", tables,
                    tables.contains("grdb_migrations")
                        ? try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") : []
                )
            }
            let ours: Set = ["job", "grdb_migrations", "sqlite_sequence"]
            guard tables.allSatisfy(ours.contains), mode == "wal" || tables.isEmpty else {
                throw QueueError.notADatabase(path: path)
            }
            return (false, Set(migrator.migrations).isSubset(of: migrations))
        } catch {
            for suffix in journals where SystemFile.exists(path + suffix) { _ = unlink(path + suffix) }
            throw error
        }
    }

    /// The schema, in versions.
    private static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("jobs") { db in
            // AUTOINCREMENT: an id is never given twice, so a removed job's id never names a later one.
            try db.execute(
                sql: """
                    CREATE TABLE job (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL,
                        payload BLOB NOT NULL,
                        conditions TEXT NOT NULL,
                        maximumAttempts INTEGER NOT NULL,
                        initialDelay INTEGER NOT NULL,
                        multiplier REAL NOT NULL,
                        maximumDelay INTEGER NOT NULL,
                        key TEXT UNIQUE,
                        state TEXT NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        nextAttemptAt INTEGER NOT NULL DEFAULT 0,
                        expiresAt INTEGER,
                        lastError TEXT
                    );
                    CREATE INDEX job_state ON job(state, id);
                    """)
        }
        // A look finds the next due time and the expired jobs through these, not through every waiting job.
        migrator.registerMigration("dueAndExpiryIndexes") { db in
            try db.execute(
                sql: """
                    CREATE INDEX job_due ON job(state, nextAttemptAt);
                    CREATE INDEX job_expiry ON job(expiresAt) WHERE expiresAt IS NOT NULL;
                    """)
        }
        return migrator
    }()

    // MARK: - Submitting

    /// Adds a job, committed before this returns; its id, or the id of the queued job its key kept.
    ///
    /// - Throws: ``QueueError/invalidJob(reason:)`` for conditions whose target is none, ``QueueError/full(reason:)``
    ///   at the bounds.
    ///
    /// - Parameter wakesWorker: whether the file's worker is told (``WorkerSignal/notify(database:)``); the worker's
    ///   own submissions wake it in its process.
    package func submit(_ submission: Submission, now: Int64, wakesWorker: Bool = true) throws(QueueError) -> Int64 {
        do {
            _ = try submission.conditions.reachabilityTarget()
        } catch {
            throw .invalidJob(reason: "\(error)")
        }
        let conditions = String(decoding: try Self.encode(submission.conditions), as: UTF8.self)
        try checkRoomToAdd(submission.payload.count + conditions.utf8.count)
        let id = try write { db in
            if let key = submission.key,
                let queued = try Int64.fetchOne(db, sql: "SELECT id FROM job WHERE key = ?", arguments: [key])
            {
                guard submission.replacesQueued else { return queued }
                try db.execute(sql: "DELETE FROM job WHERE id = ?", arguments: [queued])
            }
            let (count, bytes) =
                try Row.fetchOne(db, sql: "SELECT count(*), total(length(payload)) FROM job")
                .map { (Int($0[0] as Int64), Int($0[1] as Double)) } ?? (0, 0)
            guard count < self.limits.maximumJobs else {
                throw QueueError.full(reason: "it holds \(count) jobs, its most")
            }
            guard bytes + submission.payload.count <= self.limits.maximumPayloadBytes else {
                throw QueueError.full(
                    reason: "\(submission.payload.count) more payload bytes would pass its \(self.limits.maximumPayloadBytes)")
            }
            let policy = submission.retryPolicy
            try db.execute(
                sql: """
                    INSERT INTO job (kind, payload, conditions, maximumAttempts, initialDelay, multiplier, maximumDelay,
                        key, state, nextAttemptAt, expiresAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'waiting', ?, ?)
                    """,
                arguments: [
                    submission.kind, Data(submission.payload), conditions, policy.maximumAttempts,
                    policy.initialDelay.saturatingMilliseconds, policy.multiplier, policy.maximumDelay.saturatingMilliseconds,
                    submission.key, now, submission.expiresAt,
                ])
            return db.lastInsertedRowID
        }
        if wakesWorker { WorkerSignal.notify(database: path) }
        return id
    }

    // MARK: - Running

    /// Makes every run the last worker did not finish waiting again, and returns how many: a worker's first act.
    package func recoverInterruptedRuns() throws(QueueError) -> Int {
        try write { db in
            try db.execute(sql: "UPDATE job SET state = 'waiting' WHERE state = 'running'")
            return db.changesCount
        }
    }

    /// Claims the first job, in order of submission, that is due at `now` and whose conditions hold: it is
    /// `running` and its attempt counted when this returns. Expired jobs met on the way are failed.
    ///
    /// `holds` is asked once per distinct set of conditions among the due jobs, not once per job, and SQLite finds the
    /// first job with a set that holds, reading the table in id order (`NOT INDEXED`: through an index it would sort
    /// every due job first): a look costs about 15 ms with 100,000 jobs waiting for conditions that do not
    /// hold, where decoding every job's conditions cost 550 ms (`Benchmarks/results/2026-11-27-durable-queue.md`).
    package func claimNext(now: Int64, where holds: (JobConditions) -> Bool) throws(QueueError) -> StoredJob? {
        try write { db in
            try db.execute(
                sql: """
                    UPDATE job SET state = 'failed', lastError = 'expired'
                    WHERE expiresAt IS NOT NULL AND expiresAt <= ? AND state IN ('waiting', 'retrying')
                    """, arguments: [now])
            let due = try String.fetchAll(
                db, sql: "SELECT DISTINCT conditions FROM job WHERE state IN ('waiting', 'retrying') AND nextAttemptAt <= ?",
                arguments: [now])
            let holding = try due.filter { text in
                holds(try JSONDecoder().decode(JobConditions.self, from: Data(text.utf8)))
            }
            guard !holding.isEmpty else { return nil }
            let texts = String(decoding: try JSONEncoder().encode(holding), as: UTF8.self)
            guard
                let id = try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT id FROM job NOT INDEXED WHERE state IN ('waiting', 'retrying') AND nextAttemptAt <= ?
                            AND conditions IN (SELECT value FROM json_each(?))
                        ORDER BY id LIMIT 1
                        """, arguments: [now, texts])
            else { return nil }
            try db.execute(sql: "UPDATE job SET state = 'running', attempts = attempts + 1 WHERE id = ?", arguments: [id])
            return try Self.job(try Row.fetchOne(db, sql: "SELECT * FROM job WHERE id = ?", arguments: [id])!)
        }
    }

    /// The job succeeded: it is gone, and never runs again.
    package func complete(_ id: Int64) throws(QueueError) {
        try write { db in
            try db.execute(sql: "DELETE FROM job WHERE id = ?", arguments: [id])
            guard db.changesCount == 1 else { throw QueueError.noSuchJob(id) }
        }
    }

    /// The job's attempt failed: it retries after its policy's delay, or is failed for good after its last
    /// attempt. Returns its new state.
    package func fail(_ id: Int64, now: Int64, reason: String) throws(QueueError) -> StoredJob.State {
        try write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM job WHERE id = ?", arguments: [id]) else {
                throw QueueError.noSuchJob(id)
            }
            let job = try Self.job(row)
            let state: StoredJob.State = job.attempts >= job.retryPolicy.maximumAttempts ? .failed : .retrying
            let next = job.retryPolicy.delay(afterFailures: job.attempts).after(now)
            try db.execute(
                sql: "UPDATE job SET state = ?, nextAttemptAt = ?, lastError = ? WHERE id = ?",
                arguments: [state.rawValue, next, reason, id])
            return state
        }
    }

    /// The job's conditions stopped holding while it ran: it waits for them again, its attempt given back.
    package func giveBack(_ id: Int64) throws(QueueError) {
        try write { db in
            try db.execute(
                sql: "UPDATE job SET state = 'waiting', attempts = max(attempts - 1, 0) WHERE id = ? AND state = 'running'",
                arguments: [id])
            guard db.changesCount == 1 else { throw QueueError.noSuchJob(id) }
        }
    }

    // MARK: - Looking

    /// When the first job that waits out a delay after `now` is due (milliseconds since 1970), if one does.
    package func nextDueTime(after now: Int64) throws(QueueError) -> Int64? {
        try read { db in
            try Int64.fetchOne(
                db, sql: "SELECT min(nextAttemptAt) FROM job WHERE state IN ('waiting', 'retrying') AND nextAttemptAt > ?",
                arguments: [now])
        }
    }

    /// The ids of the jobs claimed and not finished.
    package func runningIDs() throws(QueueError) -> Set<Int64> {
        Set(try read { db in try Int64.fetchAll(db, sql: "SELECT id FROM job WHERE state = 'running'") })
    }

    /// How many jobs are in each state.
    package func counts() throws(QueueError) -> [StoredJob.State: Int] {
        try read { db in
            var counts: [StoredJob.State: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, count(*) FROM job GROUP BY state") {
                if let state = StoredJob.State(rawValue: row[0]) { counts[state] = row[1] }
            }
            return counts
        }
    }

    /// How many jobs not yet done or failed have the validated condition, counted in the file (no job is loaded).
    package func jobsNeedingValidation() throws(QueueError) -> Int {
        try read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT count(*) FROM job WHERE state != 'failed' AND json_extract(conditions, '$.validated') = 1"
            ) ?? 0
        }
    }

    /// Every job, in order of submission.
    package func jobs() throws(QueueError) -> [StoredJob] {
        var jobs: [StoredJob] = []
        try forEachJob { jobs.append($0) }
        return jobs
    }

    /// Calls `body` with every job, in order of submission, one at a time: the file may hold more than memory should.
    ///
    /// The jobs are read 256 at a time, each batch in a read transaction of its own, and `body` is called outside
    /// them: a caller that is slow to take them (`reach queue list` into a pipe nobody reads) never holds the
    /// write-ahead log back from a checkpoint.
    package func forEachJob(_ body: (StoredJob) throws -> Void) throws(QueueError) {
        var after = Int64.min
        while true {
            let batch = try read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM job WHERE id > ? ORDER BY id LIMIT 256", arguments: [after])
                    .map(Self.job)
            }
            for job in batch {
                do {
                    try body(job)
                } catch {
                    throw storageError(error)
                }
            }
            guard let last = batch.last, batch.count == 256 else { return }
            after = last.id
        }
    }

    /// Removes a job whatever its state; whether there was one.
    package func remove(_ id: Int64) throws(QueueError) -> Bool {
        let removed = try write { db in
            try db.execute(sql: "DELETE FROM job WHERE id = ?", arguments: [id])
            return db.changesCount == 1
        }
        if removed { WorkerSignal.notify(database: path) }
        return removed
    }

    /// Milliseconds since 1970, the queue's clock: the wall clock, so that a retry's time means the same after a
    /// reboot.
    package static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    // MARK: - Rows

    /// Commits `body`. When the disk is full, space is made and the write tried again, twice: first the write-ahead
    /// log is checkpointed into the file and truncated (a commit appends to the log until a checkpoint, which the
    /// file's own pages take without growing when jobs end), then the worker's reserve (`PATH.reserve`) is given
    /// up. Removals, a run's end and a worker's recovery need only a few pages.
    private func write<Result>(_ body: (Database) throws -> Result) throws(QueueError) -> Result {
        guard !readOnly else { throw .cannotOpen(path: path, reason: "it was opened to be read") }
        var lastError: any Error
        do {
            return try database.write(body)
        } catch {
            lastError = error
        }
        for makeRoom in [truncateLog, releaseReserve] {
            guard (lastError as? DatabaseError)?.resultCode == .SQLITE_FULL, makeRoom() else { continue }
            do {
                return try database.write(body)
            } catch {
                lastError = error
            }
        }
        throw storageError(lastError)
    }

    /// Checkpoints the write-ahead log into the file and truncates it; whether it did.
    private func truncateLog() -> Bool {
        (try? database.writeWithoutTransaction { db in try db.checkpoint(.truncate) }) != nil
    }

    // MARK: - Headroom

    /// The worker's reserve of free space, beside the file.
    package var reservePath: String { path + ".reserve" }

    /// Makes the reserve if it is missing and the disk has room for it and as much again; whether it is there. The
    /// worker calls this at its start and after each look.
    @discardableResult
    package func keepReserve() -> Bool {
        if SystemFile.size(reservePath) == Self.reserveBytes { return true }
        guard let free = SystemFile.freeBytes(beside: path), free >= 2 * Self.reserveBytes else { return false }
        return SystemFile.allocate(reservePath, bytes: Self.reserveBytes, mode: 0o600)
    }

    /// Removes the reserve; whether there was one to give up.
    private func releaseReserve() -> Bool { unlink(reservePath) == 0 }

    /// Throws ``QueueError/full(reason:)`` when adding `bytes` would leave less free (on the disk and in the file's
    /// free pages) than the worker's reserve, made or not, and as much again: jobs stop being added before the disk is
    /// so full that none could end.
    private func checkRoomToAdd(_ bytes: Int) throws(QueueError) {
        // The file's free pages take new jobs first: a queue that filled the disk once and was drained has room.
        // Read on the writer's connection: a process whose last connection is a reader (read only) leaves its
        // write-ahead log unmerged when it closes.
        let unused = (try? database.writeWithoutTransaction { db in
            try Int.fetchOne(db, sql: "SELECT freelist_count * page_size FROM pragma_freelist_count, pragma_page_size")
        }) ?? nil
        guard let disk = SystemFile.freeBytes(beside: path) else { return }
        let free = disk + (unused ?? 0)
        // Room for the reserve (unless it is made) and as much again, beside the job.
        let reserves = SystemFile.size(reservePath) == Self.reserveBytes ? 1 : 2
        if free < reserves * Self.reserveBytes + bytes + 64 * 1024 {
            throw .full(reason: "the disk is full (\(free / 1024) KiB free)")
        }
    }

    private func read<Result>(_ body: (Database) throws -> Result) throws(QueueError) -> Result {
        do {
            return try database.read(body)
        } catch {
            throw storageError(error)
        }
    }

    private func storageError(_ error: any Error) -> QueueError { Self.queueError(error, path: path, opening: false) }

    /// What a failure of GRDB or SQLite means for the queue: a file that is not a database, one that cannot be opened
    /// (`opening`), or a read or write that failed.
    private static func queueError(_ error: any Error, path: String, opening: Bool) -> QueueError {
        if let error = error as? QueueError { return error }
        guard let error = error as? DatabaseError else {
            return opening ? .cannotOpen(path: path, reason: "\(error)") : .storage(path: path, reason: "\(error)")
        }
        if error.resultCode == .SQLITE_NOTADB { return .notADatabase(path: path) }
        if error.resultCode == .SQLITE_CORRUPT { return .damaged(path: path, reason: damagedAdvice(path)) }
        if error.resultCode == .SQLITE_FULL { return .full(reason: "the disk is full") }
        let reason = error.message ?? "\(error.resultCode)"
        return opening ? .cannotOpen(path: path, reason: reason) : .storage(path: path, reason: reason)
    }

    /// How to recover a damaged queue: SQLite's `.recover` keeps every row it can still read.
    private static func damagedAdvice(_ path: String) -> String {
        let quoted = "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
        let sql = "'" + (path + ".sql").replacingOccurrences(of: "'", with: "'\\''") + "'"
        return "stop its worker and keep the file; what SQLite can still read is written out by: "
            + "sqlite3 \(quoted) .recover > \(sql) (read it before you load it into a new file)"
    }

    private static func job(_ row: Row) throws -> StoredJob {
        let conditions = try JSONDecoder().decode(JobConditions.self, from: Data((row["conditions"] as String).utf8))
        let policy = try RetryPolicy(
            maximumAttempts: row["maximumAttempts"], initialDelay: .milliseconds(row["initialDelay"] as Int64),
            multiplier: row["multiplier"], maximumDelay: .milliseconds(row["maximumDelay"] as Int64))
        return StoredJob(
            id: row["id"], kind: row["kind"], payload: Array(row["payload"] as Data), conditions: conditions,
            retryPolicy: policy, key: row["key"], state: StoredJob.State(rawValue: row["state"]) ?? .waiting,
            attempts: row["attempts"], nextAttemptAt: row["nextAttemptAt"], expiresAt: row["expiresAt"],
            lastError: row["lastError"])
    }

    private static func encode(_ conditions: JobConditions) throws(QueueError) -> Data {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return try encoder.encode(conditions)
        } catch {
            throw .storage(path: "", reason: "conditions cannot be encoded: \(error)")
        }
    }
}
