import CFileSystem
import Foundation
import GRDB
import NetworkReachabilityCore
import NetworkReachabilityPOSIX
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
        /// Milliseconds since 1970 before which it does not run (`nil`: as soon as it may).
        package var notBefore: Int64?
        /// Among the jobs that may run, a higher one runs first; equal ones in order of submission.
        package var priority = 0
        /// The job that must have succeeded before this one runs (``StoredJob/State/blocked`` until then).
        package var after: Int64?
        /// How long one attempt may run, in milliseconds, before it is cut and counts as failed.
        package var timeout: Int64?

        package init(kind: String, payload: [UInt8]) {
            self.kind = kind
            self.payload = payload
        }

        /// Checks what can be checked without the file: a target that is one, and an expiry later than the time
        /// before which the job may not run.
        ///
        /// - Throws: ``QueueError/invalidJob(reason:)`` otherwise.
        package func check(now: Int64) throws(QueueError) {
            do {
                _ = try conditions.reachabilityTarget()
            } catch {
                throw .invalidJob(reason: "\(error)")
            }
            if let expiresAt, expiresAt <= max(now, notBefore ?? now) {
                throw .invalidJob(reason: "it would expire before it may run")
            }
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
    /// - Parameter releasesReserve: whether a full disk may take the worker's reserve to open the file; a process that
    ///   only adds jobs passes `false`, since the reserve is for ends and removals.
    package init(
        path: String, limits: QueueLimits = QueueLimits(), readOnly: Bool = false, releasesReserve: Bool = true
    ) throws(QueueError) {
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
        if diskIsFull && !readOnly && releasesReserve { _ = unlink(path + ".reserve") }
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
            // The write-ahead log is checkpointed every 64 pages (256 KiB, where SQLite's default is 4 MiB) and cut
            // back to 1 MiB at each checkpoint: on a small disk the log is what fills it, and a full disk cannot take
            // the checkpoint that would give its room back; a reader that held it back while the worker ran
            // thousands of jobs leaves no log of a hundred megabytes behind.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 64")
            try db.execute(sql: "PRAGMA journal_size_limit = 1048576")
        }
        return configuration
    }

    /// Makes a new queue's file whole, in WAL mode with its schema, beside `path` under a name of its own, and moves it
    /// into place (``moveIntoPlace(_:_:)``): processes that create one file at once never meet half of it, and the
    /// first to move wins (the others' files are removed, and they open the winner's). It is made with mode 0660 less
    /// the umask, which its journals take: its user and, where the umask allows, its group may add jobs; others may
    /// not read it.
    private static func create(_ path: String) throws(QueueError) {
        removeAbandonedBuilds(of: path)
        let building = "\(path).new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { SystemFile.removeWithJournals(building) }
        let made = open(building, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o660)
        guard made >= 0 else {
            let code = errno
            if code == ENOSPC { throw .full(reason: "the disk is full") }
            if code == ENOENT {
                // Only a missing directory makes O_CREAT fail so: the queue makes its file, never its directory.
                let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
                throw .cannotOpen(path: path, reason: "its directory '\(directory.isEmpty ? "/" : directory)' does not exist")
            }
            throw .cannotOpen(path: path, reason: String(cString: strerror(code)))
        }
        close(made)
        do {
            let pool = try DatabasePool(path: building, configuration: configuration)
            try migrator.migrate(pool)
            try pool.close()
        } catch {
            throw queueError(error, path: path, opening: true)
        }
        guard moveIntoPlace(building, path) || errno == EEXIST else {
            if errno == ENOSPC { throw .full(reason: "the disk is full") }
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Gives the made file `building` the name `path` unless a file has it; whether it did (`errno` says why not).
    /// One rename that replaces nothing: with link and unlink, a process opening `path` between them would find a
    /// file with two names, which it refuses. Link and unlink remain for a file system that cannot so rename.
    private static func moveIntoPlace(_ building: String, _ path: String) -> Bool {
        if cfilesystem_rename_noreplace(building, path) == 0 { return true }
        guard errno == EINVAL || errno == ENOSYS else { return false }
        return link(building, path) == 0
    }

    /// Removes the files a creation killed before it ended left beside `path` (`PATH.new-PID-N` and its journals),
    /// those whose process is gone.
    private static func removeAbandonedBuilds(of path: String) {
        let directory = QueueFileHandle.directory(of: path)
        let prefix = QueueFileHandle.name(of: path) + ".new-"
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
            let ours: Set = [
                "job", "grdb_migrations", "sqlite_sequence", "conditionSet", "output", "setting", "tally",
            ]
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
        // Job control (priority, --after, a timeout, kept outcomes and output, pause) and a look whose cost does not
        // grow with the backlog: the distinct sets of conditions in a table of their own, found per set through an
        // index in the order jobs run, and the counts by state kept by triggers, not counted.
        migrator.registerMigration("jobControl") { db in
            try db.execute(
                sql: """
                    ALTER TABLE job ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE job ADD COLUMN afterJob INTEGER;
                    ALTER TABLE job ADD COLUMN timeout INTEGER;
                    ALTER TABLE job ADD COLUMN conditionSet INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE job ADD COLUMN finishedAt INTEGER;
                    ALTER TABLE job ADD COLUMN exitStatus INTEGER;
                    CREATE TABLE conditionSet (id INTEGER PRIMARY KEY, conditions TEXT NOT NULL UNIQUE);
                    INSERT INTO conditionSet (conditions) SELECT DISTINCT conditions FROM job;
                    UPDATE job SET conditionSet = (SELECT id FROM conditionSet WHERE conditions = job.conditions);
                    CREATE INDEX job_ready ON job(conditionSet, state, priority DESC, id, nextAttemptAt);
                    CREATE INDEX job_after ON job(afterJob) WHERE afterJob IS NOT NULL;
                    DROP INDEX job_expiry;
                    CREATE INDEX job_expiring ON job(expiresAt)
                        WHERE expiresAt IS NOT NULL AND state IN ('waiting', 'retrying', 'blocked');
                    CREATE TABLE output (job INTEGER PRIMARY KEY, bytes BLOB NOT NULL, dropped INTEGER NOT NULL);
                    CREATE TABLE setting (name TEXT PRIMARY KEY, value) WITHOUT ROWID;
                    CREATE TABLE tally (state TEXT PRIMARY KEY, jobs INTEGER NOT NULL, bytes INTEGER NOT NULL) WITHOUT ROWID;
                    INSERT INTO tally VALUES
                        ('waiting', 0, 0), ('blocked', 0, 0), ('running', 0, 0), ('retrying', 0, 0), ('failed', 0, 0),
                        ('done', 0, 0);
                    UPDATE tally SET
                        jobs = (SELECT count(*) FROM job WHERE job.state = tally.state),
                        bytes = (SELECT total(length(payload)) FROM job WHERE job.state = tally.state);
                    CREATE TRIGGER job_added AFTER INSERT ON job BEGIN
                        UPDATE tally SET jobs = jobs + 1, bytes = bytes + length(NEW.payload) WHERE state = NEW.state;
                    END;
                    CREATE TRIGGER job_moved AFTER UPDATE OF state ON job WHEN OLD.state != NEW.state BEGIN
                        UPDATE tally SET jobs = jobs - 1, bytes = bytes - length(OLD.payload) WHERE state = OLD.state;
                        UPDATE tally SET jobs = jobs + 1, bytes = bytes + length(NEW.payload) WHERE state = NEW.state;
                    END;
                    CREATE TRIGGER job_removed AFTER DELETE ON job BEGIN
                        UPDATE tally SET jobs = jobs - 1, bytes = bytes - length(OLD.payload) WHERE state = OLD.state;
                        DELETE FROM output WHERE job = OLD.id;
                        DELETE FROM conditionSet WHERE id = OLD.conditionSet
                            AND NOT EXISTS (SELECT 1 FROM job WHERE conditionSet = OLD.conditionSet);
                    END;
                    """)
        }
        migrator.registerMigration("outputLoss") { db in
            // The line that says how much of an attempt's output the file could not take, when nothing after it
            // could be written to say so: set with the attempt's end, which may use the reserve.
            try db.execute(sql: "ALTER TABLE job ADD COLUMN outputLoss TEXT")
        }
        return migrator
    }()

    // MARK: - Submitting

    /// Adds a job, committed before this returns; its id, or the id of the queued job its key kept.
    ///
    /// - Throws: ``QueueError/invalidJob(reason:)`` for conditions whose target is none, a job to follow that failed or
    ///   an expiry no later than the time before which it may not run, ``QueueError/noSuchJob(_:)`` for a job to
    ///   follow that is not in the file, ``QueueError/full(reason:)`` at the bounds.
    ///
    /// - Parameter wakesWorker: whether the file's worker is told (``WorkerSignal/notify(database:)``); the worker's
    ///   own submissions wake it in its process.
    package func submit(_ submission: Submission, now: Int64, wakesWorker: Bool = true) throws(QueueError) -> Int64 {
        try submission.check(now: now)
        let conditions = String(decoding: try Self.encode(submission.conditions), as: UTF8.self)
        do {
            try checkRoomToAdd(submission.payload.count + conditions.utf8.count)
        } catch {
            // The done jobs' outcomes give way to a new job on a full disk: they are kept only while there is room.
            // Their removal, like every commit, is written to the log first, which a checkpoint gives back.
            if (try? counts()[.done] ?? 0) ?? 0 > 0 { _ = try? clean(usingReserve: false) }
            _ = truncateLog()
            try checkRoomToAdd(submission.payload.count + conditions.utf8.count)
        }
        var replaced: Int64?
        let id = try write(usingReserve: false) { db in
            if let key = submission.key,
                let queued = try Int64.fetchOne(db, sql: "SELECT id FROM job WHERE key = ?", arguments: [key])
            {
                guard submission.replacesQueued else { return queued }
                try db.execute(sql: "DELETE FROM job WHERE id = ?", arguments: [queued])
                replaced = queued
            }
            let tally = try Row.fetchOne(
                db, sql: "SELECT total(jobs) FILTER (WHERE state != 'done'), total(bytes) FROM tally")
            let (count, bytes) = tally.map { (Int($0[0] as Double), Int($0[1] as Double)) } ?? (0, 0)
            guard count < self.limits.maximumJobs else {
                throw QueueError.full(reason: "it holds \(count) jobs, its most")
            }
            guard bytes + submission.payload.count <= self.limits.maximumPayloadBytes else {
                throw QueueError.full(
                    reason: "\(submission.payload.count) more payload bytes would pass its \(self.limits.maximumPayloadBytes)")
            }
            var state = StoredJob.State.waiting
            if let after = submission.after {
                switch try Self.state(of: after, in: db) {
                case nil: throw QueueError.noSuchJob(after)
                case .done: break
                case .failed: throw QueueError.invalidJob(reason: "job \(after), which it would follow, failed")
                default: state = .blocked
                }
            }
            try db.execute(sql: "INSERT OR IGNORE INTO conditionSet (conditions) VALUES (?)", arguments: [conditions])
            let set = try Int64.fetchOne(db, sql: "SELECT id FROM conditionSet WHERE conditions = ?", arguments: [conditions])
            let policy = submission.retryPolicy
            try db.execute(
                sql: """
                    INSERT INTO job (kind, payload, conditions, maximumAttempts, initialDelay, multiplier, maximumDelay,
                        key, state, nextAttemptAt, expiresAt, priority, afterJob, timeout, conditionSet)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    submission.kind, Data(submission.payload), conditions, policy.maximumAttempts,
                    policy.initialDelay.saturatingMilliseconds, policy.multiplier, policy.maximumDelay.saturatingMilliseconds,
                    submission.key, state.rawValue, max(now, submission.notBefore ?? now), submission.expiresAt,
                    submission.priority, submission.after, submission.timeout, set,
                ])
            let id = db.lastInsertedRowID
            // The jobs that were to follow the one this replaced follow this one.
            if let replaced {
                try db.execute(sql: "UPDATE job SET afterJob = ? WHERE afterJob = ?", arguments: [id, replaced])
            }
            return id
        }
        if replaced != nil { eraseRemovedFromLog() }
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

    /// Claims the job that runs next at `now` among those due whose conditions hold (the highest priority, then the
    /// first submitted): it is `running`, its attempt counted and its last attempt's output cleared when this
    /// returns. Nothing is claimed while the queue is paused. Expired jobs met on the way are failed.
    ///
    /// `holds` is asked once per distinct set of conditions that has a due job, and the first job of each set that
    /// holds is found through an index in the order jobs run: a look costs the same with 100 or 100,000 jobs queued
    /// (`Benchmarks/results/2026-11-28-queue-backlog.md`).
    package func claimNext(now: Int64, where holds: (JobConditions) -> Bool) throws(QueueError) -> StoredJob? {
        try write { db in
            let expired = try Int64.fetchAll(
                db,
                sql: """
                    SELECT id FROM job INDEXED BY job_expiring
                    WHERE expiresAt IS NOT NULL AND state IN ('waiting', 'retrying', 'blocked') AND expiresAt <= ?
                    """, arguments: [now])
            for id in expired {
                try db.execute(
                    sql: "UPDATE job SET state = 'failed', lastError = 'expired', finishedAt = ? WHERE id = ?",
                    arguments: [now, id])
                try Self.failDependents(of: id, because: "job \(id) expired", now: now, in: db)
            }
            guard try !Self.isPaused(db) else { return nil }
            let sets = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, conditions FROM conditionSet AS s WHERE EXISTS (
                        SELECT 1 FROM job WHERE conditionSet = s.id AND state IN ('waiting', 'retrying') AND nextAttemptAt <= ?)
                    """, arguments: [now])
            var next: (priority: Int, id: Int64)?
            for set in sets {
                let conditions = try JSONDecoder().decode(JobConditions.self, from: Data((set["conditions"] as String).utf8))
                guard holds(conditions) else { continue }
                for state in ["waiting", "retrying"] {
                    guard
                        let first = try Row.fetchOne(
                            db,
                            sql: """
                                SELECT priority, id FROM job WHERE conditionSet = ? AND state = ? AND nextAttemptAt <= ?
                                ORDER BY priority DESC, id LIMIT 1
                                """, arguments: [set["id"] as Int64, state, now])
                    else { continue }
                    let candidate = (priority: first[0] as Int, id: first[1] as Int64)
                    if next.map({ candidate.priority > $0.priority || (candidate.priority == $0.priority && candidate.id < $0.id) })
                        ?? true
                    {
                        next = candidate
                    }
                }
            }
            guard let id = next?.id else { return nil }
            try db.execute(
                sql: "UPDATE job SET state = 'running', attempts = attempts + 1, outputLoss = NULL WHERE id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM output WHERE job = ?", arguments: [id])
            return try Self.storedJob(try Row.fetchOne(db, sql: "SELECT * FROM job WHERE id = ?", arguments: [id])!)
        }
    }

    /// The job succeeded: it is `done` and never runs again, and the jobs that were to follow it may run. Its
    /// outcome is kept a while (``QueueLimits/keptOutcomes``, ``keptOutcomeMilliseconds``), then removed.
    ///
    /// - Parameter outputLoss: the line that says what of the attempt's output the file could not take, shown at its
    ///   end (``output(of:)``); this end, unlike output, may use the worker's reserve.
    package func complete(_ id: Int64, now: Int64 = JobStore.now(), outputLoss: String? = nil) throws(QueueError) {
        let removed = try write { db in
            try db.execute(
                sql: """
                    UPDATE job SET state = 'done', finishedAt = ?, exitStatus = 0, lastError = NULL, key = NULL,
                        outputLoss = ?
                    WHERE id = ?
                    """, arguments: [now, outputLoss, id])
            guard db.changesCount == 1 else { throw QueueError.noSuchJob(id) }
            try db.execute(
                sql: "UPDATE job SET state = 'waiting' WHERE afterJob = ? AND state = 'blocked'", arguments: [id])
            return try Self.removeOldOutcomes(keeping: self.limits.keptOutcomes, now: now, in: db)
        }
        if removed > 0 { eraseRemovedFromLog() }
    }

    /// How long a done job's outcome is kept: 7 days.
    package static let keptOutcomeMilliseconds: Int64 = 7 * 24 * 3600 * 1000

    /// Removes the done jobs past the `kept` latest once ``outcomeBatch`` more have gathered, and those of the oldest
    /// 16 older than ``keptOutcomeMilliseconds``: a few rows per run, found through the state index, whatever the file
    /// holds, and in batches, since each removal is followed by a truncation of the log (its frames still hold the
    /// commands and output), which waits for the disk. Returns whether it removed any, as a count of changed rows.
    private static func removeOldOutcomes(keeping kept: Int, now: Int64, in db: Database) throws -> Int {
        let done = try Int.fetchOne(db, sql: "SELECT jobs FROM tally WHERE state = 'done'") ?? 0
        let before = db.totalChangesCount
        try db.execute(
            sql: """
                DELETE FROM job WHERE id IN (SELECT id FROM job WHERE state = 'done' ORDER BY id LIMIT ?);
                DELETE FROM job WHERE id IN (SELECT id FROM job WHERE state = 'done' ORDER BY id LIMIT 16) AND finishedAt < ?;
                """, arguments: [done - kept >= outcomeBatch ? done - kept : 0, now - keptOutcomeMilliseconds])
        return db.totalChangesCount - before  // rows of every table, the triggers' too: more than none is what counts
    }

    /// How many done jobs past the kept ones gather before they are removed together.
    package static let outcomeBatch = 64

    /// The job's attempt failed: it retries after its policy's delay, or is failed for good after its last
    /// attempt or when `permanent`, and then so are the jobs that were to follow it. Returns its new state.
    ///
    /// - Parameters:
    ///   - exitStatus: what its command exited with (`128 + N` for a signal, 124 for a timeout), if it ran one.
    ///   - outputLoss: as ``complete(_:now:outputLoss:)``'s.
    package func fail(
        _ id: Int64, now: Int64, reason: String, exitStatus: Int32? = nil, permanent: Bool = false, outputLoss: String? = nil
    ) throws(QueueError) -> StoredJob.State {
        try write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM job WHERE id = ?", arguments: [id]) else {
                throw QueueError.noSuchJob(id)
            }
            let job = try Self.storedJob(row)
            let state: StoredJob.State = permanent || job.attempts >= job.retryPolicy.maximumAttempts ? .failed : .retrying
            let next = job.retryPolicy.delay(afterFailures: job.attempts).after(now)
            try db.execute(
                sql: """
                    UPDATE job SET state = ?, nextAttemptAt = ?, lastError = ?, exitStatus = ?, finishedAt = ?, outputLoss = ?
                    WHERE id = ?
                    """, arguments: [state.rawValue, next, reason, exitStatus, state == .failed ? now : nil, outputLoss, id])
            if state == .failed { try Self.failDependents(of: id, because: "job \(id) failed", now: now, in: db) }
            return state
        }
    }

    /// Fails the jobs blocked behind job `id`, and those behind them, which can no longer run.
    private static func failDependents(of id: Int64, because reason: String, now: Int64, in db: Database) throws {
        try db.execute(
            sql: """
                WITH RECURSIVE chain(id) AS (
                    SELECT id FROM job WHERE afterJob = ? AND state = 'blocked'
                    UNION SELECT job.id FROM job JOIN chain ON job.afterJob = chain.id WHERE job.state = 'blocked')
                UPDATE job SET state = 'failed', lastError = ?, finishedAt = ? WHERE id IN chain
                """, arguments: [id, reason, now])
    }

    /// The job's conditions stopped holding while it ran: it waits for them again, its attempt given back.
    ///
    /// - Parameter outputLoss: as ``complete(_:now:outputLoss:)``'s.
    package func giveBack(_ id: Int64, outputLoss: String? = nil) throws(QueueError) {
        try write { db in
            try db.execute(
                sql: """
                    UPDATE job SET state = 'waiting', attempts = max(attempts - 1, 0), outputLoss = ?
                    WHERE id = ? AND state = 'running'
                    """, arguments: [outputLoss, id])
            guard db.changesCount == 1 else { throw QueueError.noSuchJob(id) }
        }
    }

    // MARK: - Output

    /// The most of a job's output kept, its last bytes: 64 KiB.
    package static let keptOutputBytes = 64 * 1024

    /// Appends `bytes` to the output of job `id`'s attempt, of which the last ``keptOutputBytes`` are kept (nothing
    /// when the job is gone). Output is what a full disk gives up first: it is never written with the worker's reserve.
    ///
    /// - Throws: ``QueueError/full(reason:)`` on a full disk, ``QueueError/storage(path:reason:)`` when the write fails.
    package func appendOutput(_ bytes: [UInt8], to id: Int64) throws(QueueError) {
        guard !bytes.isEmpty else { return }
        try write(usingReserve: false) { db in
            guard try Self.state(of: id, in: db) != nil else { return }
            let kept = try Row.fetchOne(db, sql: "SELECT bytes, dropped FROM output WHERE job = ?", arguments: [id])
            var all = kept.map { Array($0["bytes"] as Data) } ?? []
            var dropped: Int64 = kept?["dropped"] ?? 0
            all += bytes
            if all.count > Self.keptOutputBytes {
                dropped += Int64(all.count - Self.keptOutputBytes)
                all.removeFirst(all.count - Self.keptOutputBytes)
            }
            try db.execute(
                sql: "INSERT OR REPLACE INTO output (job, bytes, dropped) VALUES (?, ?, ?)",
                arguments: [id, Data(all), dropped])
        }
    }

    /// The output job `id`'s last attempt wrote, its last ``keptOutputBytes`` (and, once it ended, the line that
    /// says what of its end the file could not take), and how many bytes before them were dropped; `nil` when the
    /// file holds no job `id`.
    package func output(of id: Int64) throws(QueueError) -> (bytes: [UInt8], dropped: Int64)? {
        try read { db in
            guard let loss = try Row.fetchOne(db, sql: "SELECT outputLoss FROM job WHERE id = ?", arguments: [id]) else {
                return nil
            }
            let row = try Row.fetchOne(db, sql: "SELECT bytes, dropped FROM output WHERE job = ?", arguments: [id])
            let bytes = row.map { Array($0["bytes"] as Data) } ?? []
            return (bytes + Array(((loss["outputLoss"] as String?) ?? "").utf8), row?["dropped"] ?? 0)
        }
    }

    // MARK: - Control

    /// Makes failed jobs (`ids`, or every failed one) wait to run again, in their place and under their ids, with
    /// their attempts counted from 0; a job that follows another waits for it (blocked) until that one succeeds. A
    /// retrying job is made due now. Returns how many.
    ///
    /// - Throws: ``QueueError/noSuchJob(_:)`` for an id not in the file; ``QueueError/invalidJob(reason:)`` for a job
    ///   that is neither failed nor retrying, or follows a failed job that is not retried with it.
    @discardableResult
    package func retry(_ ids: [Int64]? = nil, now: Int64) throws(QueueError) -> Int {
        let count = try write { db in
            let chosen = try ids ?? Int64.fetchAll(db, sql: "SELECT id FROM job WHERE state = 'failed' ORDER BY id")
            for id in chosen.sorted() {
                guard let state = try Self.state(of: id, in: db) else { throw QueueError.noSuchJob(id) }
                guard state == .failed || state == .retrying else {
                    throw QueueError.invalidJob(reason: "job \(id) is \(state.rawValue): only a failed or retrying job is retried")
                }
                let after = try Int64.fetchOne(db, sql: "SELECT afterJob FROM job WHERE id = ?", arguments: [id])
                let dependency = try after.flatMap { after in try Self.state(of: after, in: db) }
                if dependency == .failed, let after {
                    throw QueueError.invalidJob(reason: "job \(id) follows job \(after), which failed: retry that first")
                }
                let next: StoredJob.State = dependency == nil || dependency == .done ? .waiting : .blocked
                try db.execute(
                    sql: """
                        UPDATE job SET state = ?, attempts = 0, nextAttemptAt = ?, lastError = NULL, exitStatus = NULL,
                            finishedAt = NULL
                        WHERE id = ?
                        """, arguments: [next.rawValue, now, id])
            }
            return chosen.count
        }
        if count > 0 { WorkerSignal.notify(database: path) }
        return count
    }

    /// Removes the done jobs' outcomes and, with `failed`, the failed jobs; how many jobs it removed. Without
    /// `usingReserve` (a submission making room), the worker's reserve is never given up for it.
    @discardableResult
    package func clean(failed: Bool = false, usingReserve: Bool = true) throws(QueueError) -> Int {
        let removed = try write(usingReserve: usingReserve) { db in
            try db.execute(sql: "DELETE FROM job WHERE state = 'done' OR (? AND state = 'failed')", arguments: [failed])
            return db.changesCount
        }
        if removed > 0 { eraseRemovedFromLog() }
        return removed
    }

    /// Pauses the queue (no job starts; those running run on) or resumes it; kept in the file, so a restarted worker
    /// stays paused.
    package func setPaused(_ paused: Bool) throws(QueueError) {
        try write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO setting (name, value) VALUES ('paused', ?)", arguments: [paused])
        }
        WorkerSignal.notify(database: path)
    }

    /// Whether the queue is paused.
    package func isPaused() throws(QueueError) -> Bool { try read { db in try Self.isPaused(db) } }

    private static func isPaused(_ db: Database) throws -> Bool {
        guard try db.tableExists("setting") else { return false }  // not migrated yet: read only
        return try Bool.fetchOne(db, sql: "SELECT value FROM setting WHERE name = 'paused'") ?? false
    }

    private static func state(of id: Int64, in db: Database) throws -> StoredJob.State? {
        try String.fetchOne(db, sql: "SELECT state FROM job WHERE id = ?", arguments: [id]).flatMap(StoredJob.State.init)
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

    /// How many jobs are in each state, kept by the file's triggers (nothing is counted).
    package func counts() throws(QueueError) -> [StoredJob.State: Int] {
        try read { db in
            var counts: [StoredJob.State: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, jobs FROM tally") {
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
                sql: """
                    SELECT count(*) FROM job
                    WHERE state NOT IN ('failed', 'done') AND json_extract(conditions, '$.validated') = 1
                    """
            ) ?? 0
        }
    }

    /// Job `id`, or `nil` when the file holds none.
    package func job(_ id: Int64) throws(QueueError) -> StoredJob? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM job WHERE id = ?", arguments: [id]).map(Self.storedJob) }
    }

    /// Every job not done, in order of submission; with `includingDone`, the done ones kept too.
    package func jobs(includingDone: Bool = false) throws(QueueError) -> [StoredJob] {
        var jobs: [StoredJob] = []
        try forEachJob(includingDone: includingDone) { jobs.append($0) }
        return jobs
    }

    /// Calls `body` with every job not done (with `includingDone`, every job), in order of submission, one at a time:
    /// the file may hold more than memory should.
    ///
    /// The jobs are read 256 at a time, each batch in a read transaction of its own, and `body` is called outside
    /// them: a caller that is slow to take them (`reach queue list` into a pipe nobody reads) never holds the
    /// write-ahead log back from a checkpoint.
    package func forEachJob(includingDone: Bool = false, _ body: (StoredJob) throws -> Void) throws(QueueError) {
        var after = Int64.min
        while true {
            let batch = try read { db in
                try Row.fetchAll(
                    db, sql: "SELECT * FROM job WHERE id > ? AND (? OR state != 'done') ORDER BY id LIMIT 256",
                    arguments: [after, includingDone]
                )
                .map(Self.storedJob)
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

    /// Removes a job whatever its state; whether there was one. The jobs that were to follow it fail.
    package func remove(_ id: Int64) throws(QueueError) -> Bool {
        let removed = try write { db in
            try db.execute(sql: "DELETE FROM job WHERE id = ?", arguments: [id])
            guard db.changesCount == 1 else { return false }
            try Self.failDependents(of: id, because: "job \(id) was removed", now: Self.now(), in: db)
            return true
        }
        if removed {
            eraseRemovedFromLog()
            WorkerSignal.notify(database: path)
        }
        return removed
    }

    /// Milliseconds since 1970, the queue's clock: the wall clock, so that a retry's time means the same after a
    /// reboot.
    package static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    // MARK: - Rows

    /// Commits `body`. When the disk is full, space is made and the write tried again, twice: first the write-ahead
    /// log is checkpointed into the file and truncated (a commit appends to the log until a checkpoint, which the
    /// file's own pages take without growing when jobs end), then the worker's reserve (`PATH.reserve`) is given
    /// up and the log truncated again, which the file may now grow for (unless `usingReserve` is false: a submission
    /// never takes what the worker keeps for ends and removals).
    /// Removals, a run's end and a worker's recovery need only a few pages.
    private func write<Result>(usingReserve: Bool = true, _ body: (Database) throws -> Result) throws(QueueError) -> Result {
        guard !readOnly else { throw .cannotOpen(path: path, reason: "it was opened to be read") }
        var lastError: any Error
        do {
            return try database.write(body)
        } catch {
            lastError = error
        }
        for makeRoom in usingReserve ? [truncateLog, releaseReserveAndTruncateLog] : [truncateLog] {
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

    /// After a commit that removed jobs (a removal, a clean, a key's replacement, a batch of old outcomes): the log's
    /// older frames still hold their commands and output, which the file itself overwrote (`secure_delete`), so it is
    /// checkpointed and truncated.
    private func eraseRemovedFromLog() { _ = truncateLog() }

    /// Gives up the reserve, then truncates the log with the room it left; whether there was a reserve.
    private func releaseReserveAndTruncateLog() -> Bool {
        guard releaseReserve() else { return false }
        _ = truncateLog()
        return true
    }

    // MARK: - Headroom

    /// The worker's reserve of free space, beside the file.
    package var reservePath: String { path + ".reserve" }

    /// Makes the reserve if it is missing and the disk has room for it and as much again; whether it is there. The
    /// worker calls this at its start and after each look.
    ///
    /// While the reserve cannot be made, the write-ahead log is truncated instead, at each look: on a disk that
    /// full, the log would grow into the last free bytes, and then the checkpoint that gives its room back could
    /// not grow the file by the pages it must copy, which no write could ever mend.
    @discardableResult
    package func keepReserve() -> Bool {
        if SystemFile.size(reservePath) == Self.reserveBytes { return true }
        guard let free = SystemFile.freeBytes(beside: path), free >= 2 * Self.reserveBytes else {
            _ = truncateLog()
            return false
        }
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
        // Room for the reserve (unless it is made) and as much again, beside the job.
        let reserves = SystemFile.size(reservePath) == Self.reserveBytes ? 1 : 2
        let needed = reserves * Self.reserveBytes + bytes + 64 * 1024
        if disk + (unused ?? 0) < needed {
            throw .full(
                reason: "the disk is full (\(disk / 1024) KiB free on it and \((unused ?? 0) / 1024) KiB in the file, where "
                    + "\(needed / 1024) KiB are needed: room is kept for the worker to record ends and removals)")
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

    private static func storedJob(_ row: Row) throws -> StoredJob {
        let conditions = try JSONDecoder().decode(JobConditions.self, from: Data((row["conditions"] as String).utf8))
        let policy = try RetryPolicy(
            maximumAttempts: row["maximumAttempts"], initialDelay: .milliseconds(row["initialDelay"] as Int64),
            multiplier: row["multiplier"], maximumDelay: .milliseconds(row["maximumDelay"] as Int64))
        return StoredJob(
            id: row["id"], kind: row["kind"], payload: Array(row["payload"] as Data), conditions: conditions,
            retryPolicy: policy, key: row["key"], state: StoredJob.State(rawValue: row["state"]) ?? .waiting,
            attempts: row["attempts"], nextAttemptAt: row["nextAttemptAt"], expiresAt: row["expiresAt"],
            // A file not migrated yet (read by `list` before a worker of this version opened it) has no job control.
            lastError: row["lastError"], priority: row["priority"] ?? 0, after: row["afterJob"], timeout: row["timeout"],
            finishedAt: row["finishedAt"], exitStatus: row["exitStatus"])
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
