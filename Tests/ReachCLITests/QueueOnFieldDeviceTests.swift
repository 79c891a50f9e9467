import Foundation
import Testing
import TestSupport

/// `reach queue` where a field device meets it in its second month: a full disk, a read-only remount, other local
/// users and their files, commands that leave processes behind, a damaged file, a FIFO, bytes that are not UTF-8 and
/// command lines that hold terminal controls. Users other than root are `nobody` (65534) and an unnamed uid 65533
/// in group `nogroup` (65534), through `setpriv`.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread(timeLimit: .seconds(240)))
struct QueueOnFieldDeviceTests {
    /// A folder of the test's own (a tmpfs of `megabytes` where asked), removed when it ends.
    private final class Folder {
        let path: String
        private let mounted: Bool

        init(tmpfsMegabytes megabytes: Int? = nil) throws {
            path = try TestFolder.make("queue-field")
            if let megabytes {
                try Command.run(["mount", "-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0755", "tmpfs", path], check: true)
            }
            mounted = megabytes != nil
        }

        deinit {
            if mounted { _ = try? Command.run(["umount", "-l", path]) }
            try? FileManager.default.removeItem(atPath: path)
        }

        var database: String { path + "/jobs.db" }
        var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
    }

    /// A worker in `network`, as `user` (`setpriv` arguments) where given, with its stdout and stderr.
    private struct Worker {
        let output = LineCollector()
        let errors = LineCollector()
        let process: Subprocess

        init(_ database: String, in network: TestNetwork, as user: [String] = [], umask: String = "022") throws {
            process = try network.start(
                user + ["sh", "-c", "umask \(umask) && exec \"$@\"", "sh", ReachBinary.path, "queue", "run", database],
                output: output.pipe, errors: errors.pipe)
        }

        /// SIGTERM, and its exit status.
        func stop() -> Int32? {
            process.send(SIGTERM)
            if case .exited(let status) = process.wait() { return status }
            return nil
        }
    }

    private static let nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    private static let member = ["setpriv", "--reuid=65533", "--regid=65534", "--clear-groups"]

    private static func reach(_ arguments: [String], as user: [String] = []) throws -> CommandResult {
        try Command.run(user + [ReachBinary.path] + arguments, timeout: 60)
    }

    private static func list(_ database: String) throws -> [String] { try reach(["queue", "list", database]).lines }

    private static func running(_ marker: String) throws -> [String] {
        try Command.run(["pgrep", "-f", "^" + marker]).lines
    }

    // MARK: - A full disk

    @Test func aFullDiskRefusesNewJobsWhileEveryQueuedOneRunsAndIsRemovable() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder(tmpfsMegabytes: 1)
        // Jobs of 12 KiB each (few processes, which the sanitizers' runs start slowly), added with no worker until the
        // queue refuses one
        let padding = String(repeating: "x", count: 12 * 1024)
        var added = 0
        var refusal: CommandResult?
        while refusal == nil && added < 1000 {
            let result = try Self.reach(["queue", "add", folder.database, "--", "sh", "-c", "true", padding])
            if result.status == 0 { added += 1 } else { refusal = result }
        }
        print("a 1 MiB disk took \(added) jobs of 12 KiB")
        #expect(added > 10)
        #expect(refusal?.status == 75 && refusal?.standardError.contains("the disk is full") == true, "\(String(describing: refusal))")
        // Removing one works on the full disk, and so does a worker's start: it runs every job that is left
        #expect(try Self.reach(["queue", "remove", folder.database, "1"]).status == 0)
        let worker = try Worker(folder.database, in: network)
        let ends = worker.errors.waitForLines(added - 1, timeout: 120)
        #expect(ends.filter { $0.hasSuffix(": done") }.count == added - 1, "\(ends.suffix(5))")
        #expect(try Self.list(folder.database).isEmpty)
        #expect(worker.stop() == 0)
        #expect(!worker.errors.lines.contains { !$0.hasSuffix(": done") }, "\(worker.errors.lines)")
        // The drained file's free pages take jobs again
        #expect(try Self.reach(["queue", "add", folder.database, "--", "echo", "after"]).status == 0)

        // A worker restarted on a disk another program filled gives up its reserve to open the file, and runs
        _ = try Command.run(["dd", "if=/dev/zero", "of=\(folder.path)/filler", "bs=4k"])
        let restarted = try Worker(folder.database, in: network)
        #expect(restarted.output.waitForLine { $0 == "after" } != nil, "\(restarted.errors.lines)")
        #expect(restarted.stop() == 0)
    }

    @Test func aWorkerOnAFullSharedDiskSaysSoAndResumesByItselfWhenSpaceReturns() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder(tmpfsMegabytes: 4)
        try network.ip("route", "del", "default")
        let worker = try Worker(folder.database, in: network)
        // A job whose pages are still in the write-ahead log, waiting for its route
        let padding = String(repeating: "x", count: 16 * 1024)
        try #require(Self.reach(["queue", "add", folder.database, "--", "sh", "-c", "echo ran", padding]).status == 0)
        #expect(worker.output.linesAfterQuiet(0.5).isEmpty)

        // When another program fills the disk (and the worker's reserve is gone) and the route returns, the worker
        // cannot claim the job: it says so without --verbose, and tries again
        unlink(folder.database + ".reserve")
        _ = try Command.run(["dd", "if=/dev/zero", "of=\(folder.path)/filler", "bs=64k"])
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        #expect(worker.errors.waitForLine(timeout: 20) { $0.contains("trying again in") } != nil, "\(worker.errors.lines)")
        #expect(worker.output.lines.isEmpty)

        // When the filler goes, the job runs within seconds, with nothing else to wake the worker
        unlink(folder.path + "/filler")
        let freed = Date()
        #expect(worker.output.waitForLine(timeout: 30) { $0 == "ran" } != nil)
        let seconds = Date().timeIntervalSince(freed)
        print("a worker on a full disk ran its job \(seconds) s after space returned")
        #expect(seconds < 12, "after \(seconds) s")
        #expect(worker.stop() == 0)
    }

    @Test func outputTheFullDiskCouldNotTakeIsCountedInTheLogAndSaidOnStderr() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder(tmpfsMegabytes: 4)
        let (go, end, last) = (folder.path + "/go", folder.path + "/end", folder.path + "/last")
        for fifo in [go, end, last] { try #require(mkfifo(fifo, 0o600) == 0) }
        // A job that writes a line, then 20,000 bytes while the disk is full, then a line when space returned; one
        // that writes all it writes while the disk is full; two that never run, whose removal cuts the write-ahead
        // log back to nothing (so that the full disk has no room in it either)
        let scripts = [
            "echo before; read x < \(go); head -c 20000 /dev/zero | tr '\\0' y; read x < \(end); echo; echo after",
            "read x < \(last); head -c 20000 /dev/zero | tr '\\0' z; echo; echo last",
        ]
        for script in scripts { try #require(Self.reach(["queue", "add", folder.database, "--", "sh", "-c", script]).status == 0) }
        for _ in 0..<2 { try #require(Self.reach(["queue", "add", folder.database, "--delay", "3600", "--", "true"]).status == 0) }
        func fillDisk(removing id: Int) throws {
            try #require(Self.reach(["queue", "remove", folder.database, "\(id)"]).status == 0)
            _ = try Command.run(["dd", "if=/dev/zero", "of=\(folder.path)/filler", "bs=4k"])
        }
        func log(_ id: Int) throws -> String { try Self.reach(["queue", "log", folder.database, "\(id)"]).standardOutput }
        let worker = try Worker(folder.database, in: network)
        // Committed (within a second) once a follower of the log sees it
        let follower = LineCollector()
        let follow = try network.start(
            [ReachBinary.path, "queue", "log", folder.database, "1", "--follow"], output: follower.pipe, errors: LineCollector().pipe)
        #expect(follower.waitForLine(timeout: 20) { $0 == "before" } != nil)
        follow.end()

        try fillDisk(removing: 3)
        _ = try Command.run(["sh", "-c", "echo > \(go)"], timeout: 20)
        let warning = worker.errors.waitForLine(timeout: 20) { $0.contains("its output is not kept") }
        #expect(warning?.contains("job 1:") == true && warning?.contains("the disk is full") == true, "\(worker.errors.lines)")
        unlink(folder.path + "/filler")
        _ = try Command.run(["sh", "-c", "echo > \(end)"], timeout: 20)
        #expect(worker.errors.waitForLine(timeout: 20) { $0.hasSuffix("job 1, attempt 1: done") } != nil)
        // Every byte is in the log or counted in the line that stands where the file could not take it
        let all = try log(1).split(separator: "\n")
        let lines = all.filter { !$0.allSatisfy { $0 == "y" } }
        let shown = all.filter { $0.allSatisfy { $0 == "y" } }.reduce(0) { $0 + $1.count }
        let mark = try #require(lines.first { $0.hasPrefix("[reach: ") }, "\(lines)")
        let lost = Int(mark.dropFirst(8).prefix { $0.isNumber }) ?? -1
        print("on a full disk, \(lost) bytes of a job's output were lost and \(shown) kept: \(lines)")
        #expect(lost >= 16 * 1024 && shown + lost == 20000, "\(lost) + \(shown)")
        #expect(mark.hasSuffix(" bytes of output are not kept here: the disk is full]"))
        #expect(lines.first == "before" && lines.last == "after")

        // When the disk stays full to the end, the end (which may use the worker's reserve) says what was lost
        try fillDisk(removing: 4)
        _ = try Command.run(["sh", "-c", "echo > \(last)"], timeout: 20)
        #expect(worker.errors.waitForLine(timeout: 20) { $0.hasSuffix("job 2, attempt 1: done") } != nil, "\(worker.errors.lines)")
        #expect(try log(2) == "[reach: 20006 bytes of output are not kept here: the disk is full]\n")
        unlink(folder.path + "/filler")
        #expect(worker.stop() == 0)
    }

    @Test func aSmallDiskIsNeverFilledByTheQueuesOwnLog() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder(tmpfsMegabytes: 2)
        let worker = try Worker(folder.database, in: network)
        // Jobs of 109 KB of output each, whose 64 KiB kept are written again at each 16 KiB: about 380 KB of the
        // write-ahead log a job, on a disk of 2 MiB
        var largestLog = 0
        for round in 1...8 {
            let added = try Self.reach(["queue", "add", folder.database, "--", "seq", "1", "20000"])
            try #require(added.status == 0, "round \(round): \(added.standardError)")
            #expect(try Self.reach(["queue", "wait", folder.database, "\(round)"]).status == 0)
            let log = try? FileManager.default.attributesOfItem(atPath: folder.database + "-wal")[.size] as? Int
            largestLog = max(largestLog, log ?? 0)
        }
        print("a 2 MiB disk ran 8 jobs of 109 KB output each; the log was at most \(largestLog) bytes")
        #expect(largestLog <= 1 << 20)
        #expect(try Self.reach(["queue", "list", folder.database, "--all"]).lines.count == 8)
        #expect(worker.stop() == 0)
    }

    // MARK: - Other local users

    @Test func anotherUsersFilesAndLinksAreRefusedAndNoneCanStopTheWorker() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder()
        try #require(Self.reach(["queue", "add", folder.database, "--", "echo", "root's"]).status == 0)

        // Others may not read root's queue (command lines hold tokens), so none may take the worker's lock
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.database)
        #expect((attributes[.posixPermissions] as? Int ?? 0o777) & 0o007 == 0)
        let peek = try Self.reach(["queue", "list", folder.database], as: Self.nobody)
        #expect(peek.status == 66 && peek.standardOutput.isEmpty, "\(peek)")

        // A link to the file, or a second name, would be a second worker's: both are refused, and nothing is made
        // where a planted link points
        let link = folder.path + "/link.db"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder.database)
        let planted = folder.path + "/planted.db"
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: folder.path + "/made-by-root")
        for path in [link, planted] {
            let refused = try Self.reach(["queue", "run", path])
            #expect(refused.status == 77 && refused.standardError.contains("symbolic link"), "\(refused)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/made-by-root"))
        #expect(Glibc.link(folder.database, folder.path + "/second.db") == 0)
        let second = try Self.reach(["queue", "run", folder.path + "/second.db"])
        #expect(second.status == 77 && second.standardError.contains("names (hard links)"), "\(second)")
        unlink(folder.path + "/second.db")

        // A `.worker` signal file nobody planted as a link is replaced; the worker runs
        try FileManager.default.createSymbolicLink(
            atPath: folder.database + ".worker", withDestinationPath: folder.path + "/made-by-root")
        let worker = try Worker(folder.database, in: network)
        #expect(worker.output.waitForLine { $0 == "root's" } != nil)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/made-by-root"))
        #expect(worker.stop() == 0)

        // A file another user owns is never run by root, nor one in a directory others may write
        #expect(chown(folder.database, 65534, 65534) == 0)
        let foreign = try Self.reach(["queue", "run", folder.database])
        #expect(foreign.status == 77 && foreign.standardError.contains("belongs to user 65534"), "\(foreign)")
        #expect(chown(folder.database, 0, 0) == 0)
        #expect(chown(folder.path, 0, 65534) == 0 && chmod(folder.path, 0o775) == 0)
        let grouped = try Self.reach(["queue", "run", folder.database])
        #expect(grouped.status == 77 && grouped.standardError.contains("group 65534"), "\(grouped)")
        #expect(chmod(folder.path, 0o777) == 0)
        let open = try Self.reach(["queue", "run", folder.database])
        #expect(open.status == 77 && open.standardError.contains("anyone may write its directory"), "\(open)")
    }

    @Test func journalsAnotherUserPlantedInASharedDirectoryNeverReceiveACommandLine() throws {
        let folder = try Folder()
        #expect(chmod(folder.path, 0o1777) == 0)
        // nobody plants an open journal (and the worker's reserve as a FIFO) before root's first job
        let database = folder.path + "/shared.db"
        let planted = try Command.run(
            Self.nobody + ["sh", "-c", "umask 0; : > \(database)-wal; : > \(database)-shm; mkfifo \(database).reserve"])
        #expect(planted.status == 0, "\(planted)")
        let added = try Self.reach(["queue", "add", database, "--", "curl", "-H", "Authorization: Bearer SECRET-\(getpid())"])
        #expect(added.status == 77 && added.standardError.contains("belongs to user 65534"), "\(added)")
        #expect(try TestFile.bytes(database + "-wal").isEmpty)
        // Root's own journals that others may open lose that access; a FIFO beside the file is refused
        for name in ["-wal", "-shm"] { unlink(database + name) }
        #expect(try Self.reach(["queue", "add", database, "--", "true"]).status == 77)  // the FIFO reserve
        unlink(database + ".reserve")
        #expect(try Self.reach(["queue", "add", database, "--", "true"]).status == 0)
        #expect(FileManager.default.createFile(atPath: database + "-journal", contents: nil, attributes: [.posixPermissions: 0o666]))
        #expect(try Self.reach(["queue", "list", database]).status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: database + "-journal")[.posixPermissions] as? Int
        #expect(mode.map { $0 & 0o007 } == 0)
    }

    @Test func theUnitsGroupModelLetsAMemberAddJobsItsWorkerRuns() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder()
        // As the unit sets it up: a state directory 0770 of the worker's user and group, UMask=0007
        let state = folder.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        #expect(chown(state, 65534, 65534) == 0 && chmod(state, 0o770) == 0)
        let database = state + "/outbox.db"
        // A member's add before the worker ever ran would make a file the worker cannot run: it is refused
        let early = try Self.reach(["queue", "add", database, "--", "true"], as: Self.member)
        #expect(early.status == 66 && early.standardError.contains("start the worker first"), "\(early)")
        #expect(!FileManager.default.fileExists(atPath: database))
        let worker = try Worker(database, in: network, as: Self.nobody, umask: "0007")
        #expect(eventually(timeout: 10) { FileManager.default.fileExists(atPath: database + ".worker") })

        // A member of the group adds a job; the worker runs it
        let added = try Self.reach(["queue", "add", database, "--", "echo", "from a member"], as: Self.member)
        #expect(added.status == 0, "\(added)")
        #expect(worker.output.waitForLine { $0 == "from a member" } != nil)
        #expect(worker.stop() == 0)
    }

    // MARK: - Processes a command leaves

    @Test func everyProcessACommandStartedEndsWithItWhetherItEndsOrIsStopped() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder()
        let mark = 3_000 + Int(getpid() % 1000)  // `sleep` seconds no other test uses
        let worker = try Worker(folder.database, in: network)
        defer { _ = try? Command.run(["pkill", "-KILL", "-f", "sleep \(mark)"]) }

        // A command that ends, leaving a setsid child and one that ignores SIGTERM: both end with it
        try #require(
            Self.reach([
                "queue", "add", folder.database, "--", "sh", "-c",
                "setsid sleep \(mark)1 & (trap '' TERM; exec sleep \(mark)2) & echo left; exit 0",
            ]).status == 0)
        #expect(worker.output.waitForLine { $0 == "left" } != nil)
        #expect(worker.errors.waitForLine { $0.hasSuffix(": done") } != nil)
        #expect(try Self.running("sleep \(mark)").isEmpty)

        // A stopped command whose leader ends on SIGTERM while its child ignores it, and a setsid child: all gone
        // when the worker has stopped, and the next worker starts at once
        try #require(
            Self.reach([
                "queue", "add", folder.database, "--", "sh", "-c",
                "(trap '' TERM; exec sleep \(mark)3) & setsid sleep \(mark)4 & echo running; sleep \(mark)5",
            ]).status == 0)
        #expect(worker.output.waitForLine { $0 == "running" } != nil)
        #expect(eventually(timeout: 10) { (try? Self.running("sleep \(mark)").count) == 3 })
        #expect(worker.stop() == 0)
        #expect(try Self.running("sleep \(mark)").isEmpty)
        let next = try Worker(folder.database, in: network)
        #expect(next.output.waitForLine { $0 == "running" } != nil)
        #expect(next.stop() == 0)
    }

    // MARK: - Job control

    @Test func aScriptControlsItsJobsOrderTimeFailuresAndOutput() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder()
        let db = folder.database
        func add(_ options: [String], _ command: String) throws -> String {
            let added = try Self.reach(["queue", "add", db] + options + ["--", "sh", "-c", command])
            try #require(added.status == 0, "\(added.standardError)")
            return String(added.standardOutput.dropLast())
        }
        let failing = try add(["--permanent-failure", "7,3"], "echo one; echo two >&2; echo three; exit 3")
        let follower = try add(["--after", failing], "echo never")
        let hanging = try add(["--timeout", "0.3", "--attempts", "1"], "exec sleep 30")
        let delayed = Date()
        let urgent = try add(["--priority", "10", "--delay", "1"], "echo urgent")
        try #require(Self.reach(["queue", "pause", db]).status == 0)
        let worker = try Worker(db, in: network)
        #expect(worker.errors.linesAfterQuiet(0.3).isEmpty, "a paused queue starts nothing")
        #expect(try Self.reach(["queue", "list", db]).standardError == "reach: the queue is paused: no job starts until `reach queue resume`\n")
        let followed = LineCollector()
        let follow = try network.start([ReachBinary.path, "queue", "log", db, failing, "--follow"], output: followed.pipe)
        try #require(Self.reach(["queue", "resume", db]).status == 0)

        // `wait` exits as the job did: its listed permanent status at once, 1 for the follower it failed, 124 for
        // the timeout, 0 once done; `log --follow` printed all it wrote to stdout and stderr in its order, and ended
        let waited = try Self.reach(["queue", "wait", db, failing])
        #expect(waited.status == 3 && waited.standardError == "reach: job \(failing) failed: exit status 3\n")
        #expect(followed.waitForLines(3) == ["one", "two", "three"])
        #expect(follow.wait() == .exited(0))
        #expect(try Self.reach(["queue", "wait", db, follower]).status == 1)
        #expect(try Self.reach(["queue", "wait", db, hanging]).status == 124)
        #expect(worker.errors.lines.contains("reach: job \(hanging), attempt 1: timed out after 300 ms"), "\(worker.errors.lines)")
        #expect(try Self.reach(["queue", "wait", db, urgent]).status == 0)
        #expect(Date().timeIntervalSince(delayed) >= 1, "the delay held")
        #expect(try Self.reach(["queue", "log", db, urgent]).standardOutput == "urgent\n")
        let listed = try Self.reach(["queue", "list", db, "--all", "--json"]).lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(listed.map { $0["state"] as? String } == ["failed", "failed", "failed", "done"])
        #expect(listed.map { $0["exitStatus"] as? Int } == [3, nil, 124, 0])
        #expect(listed[0]["attempts"] as? Int == 1 && listed[1]["after"] as? Int == 1 && listed[3]["priority"] as? Int == 10)
        #expect(try Self.list(db).count == 3, "list without --all leaves the done job out")

        // A follower is retried only with its job; retried, they keep their ids and places
        #expect(try Self.reach(["queue", "retry", db, follower]).status == 64)
        #expect(try Self.reach(["queue", "retry", db, "--failed"]).status == 0)
        #expect(try Self.reach(["queue", "wait", db, failing]).status == 3)
        #expect(try Self.reach(["queue", "wait", db, hanging]).status == 124)
        #expect(try Self.list(db).map { $0.prefix(2) } == ["1\t", "2\t", "3\t"])
        #expect(try Self.reach(["queue", "clean", db, "--failed"]).status == 0)
        #expect(try Self.reach(["queue", "list", db, "--all"]).lines.isEmpty)
        #expect(worker.stop() == 0)

        // Bad input is exit 64; a job that is not there, 1
        for options in [
            ["--priority", "1001"], ["--not-before", "tomorrow"], ["--delay", "1", "--not-before", "2030-01-01T00:00:00Z"],
            ["--permanent-failure", "0"], ["--timeout", "0"], ["--after", "x"],
        ] {
            #expect(try Self.reach(["queue", "add", db] + options + ["--", "true"]).status == 64, "\(options)")
        }
        #expect(try Self.reach(["queue", "add", db, "--after", "99", "--", "true"]).status == 1)
        #expect(try Self.reach(["queue", "wait", db, "99"]).status == 1)
        #expect(try Self.reach(["queue", "log", db, "99"]).status == 1)
    }

    @Test func aWorkerWhoseStdoutIsNotReadOrWhoseReaderLeftRunsOnAndStops() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder()
        let db = folder.database
        for (name, reader) in [("unread", "sleep 600"), ("left", "head -c 5 >/dev/null")] {
            let fifo = folder.path + "/" + name
            let errors = LineCollector()
            let worker = try network.start(
                ["sh", "-c", "mkfifo \"$1\" && ( \(reader) < \"$1\" & ) && exec \"$2\" queue run \"$3\" > \"$1\"", "sh", fifo,
                 ReachBinary.path, db],
                errors: errors.pipe)
            defer { _ = try? Command.run(["pkill", "-f", "-x", reader]) }
            let writer = try Self.reach(["queue", "add", db, "--timeout", "5", "--", "sh", "-c", "head -c 2000000 /dev/zero; echo end"])
            let second = try Self.reach(["queue", "add", db, "--", "echo", "second"])
            // Both end, and are recorded: the worker's stdout neither holds a command nor ends the worker
            #expect(try Self.reach(["queue", "wait", db, String(writer.standardOutput.dropLast())]).status == 0, "\(name)")
            #expect(try Self.reach(["queue", "wait", db, String(second.standardOutput.dropLast())]).status == 0, "\(name)")
            #expect(try Self.reach(["queue", "log", db, String(second.standardOutput.dropLast())]).standardOutput == "second\n")
            worker.send(SIGTERM)
            #expect(worker.wait() == .exited(0), "\(name): \(errors.lines)")
        }
    }

    // MARK: - Files that are not what they seem

    @Test func aDamagedQueueIsNamedWithItsRecoveryAndLeftByteForByte() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder()
        try network.ip("route", "del", "default")
        for number in 1...8 {
            try #require(Self.reach(["queue", "add", folder.database, "--", "echo", "\(number)"]).status == 0)
        }
        // Pages 2 and 3 overwritten (the first, the schema, is whole)
        let handle = try #require(FileHandle(forUpdatingAtPath: folder.database))
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 8192))
        try handle.close()
        let damaged = try TestFile.bytes(folder.database)

        for arguments in [["add", folder.database, "--", "true"], ["list", folder.database], ["remove", folder.database, "1"]] {
            let result = try Self.reach(["queue"] + arguments)
            #expect(result.status == 65 && result.standardError.contains("is damaged") == true, "\(result)")
            #expect(result.standardError.contains(".recover >") && !result.standardError.contains("mv "), "\(result.standardError)")
            #expect(try TestFile.bytes(folder.database) == damaged, "\(arguments[0]) wrote the damaged file")
        }
        let worker = try Worker(folder.database, in: network)
        #expect(worker.process.wait() == .exited(65), "\(worker.errors.lines)")
        #expect(worker.errors.lines.count == 1 && worker.errors.lines[0].contains("is damaged"), "\(worker.errors.lines)")
        #expect(try TestFile.bytes(folder.database) == damaged)
    }

    @Test func aFIFOADeviceOrAnotherProgramsFileIsRefusedAtOnceAndNothingIsLeftBeside() throws {
        let folder = try Folder()
        let fifo = folder.path + "/fifo.db"
        #expect(mkfifo(fifo, 0o600) == 0)
        let device = folder.path + "/zero.db"
        try Command.run(["mknod", device, "c", "1", "5"], check: true)
        for path in [fifo, device] {
            for arguments in [["add", path, "--", "true"], ["list", path], ["run", path]] {
                let result = try Command.run([ReachBinary.path, "queue"] + arguments, timeout: 10)
                #expect(result.status == 77 && result.standardError.contains("not a regular file"), "\(result)")
            }
        }
        // Another program's file is refused and nothing is made beside it; an empty file lists no job and stays
        // empty; a creation killed before it ended leaves nothing once the file is made
        let text = folder.path + "/notes.db"
        try "not a queue\n".write(toFile: text, atomically: false, encoding: .utf8)
        #expect(try Self.reach(["queue", "list", text]).status == 65)
        let empty = folder.path + "/empty.db"
        #expect(FileManager.default.createFile(atPath: empty, contents: nil))
        let listed = try Self.reach(["queue", "list", empty])
        #expect(listed.status == 0 && listed.standardOutput.isEmpty)
        #expect(try TestFile.bytes(empty).isEmpty)
        let abandoned = folder.database + ".new-4194305-1"
        #expect(FileManager.default.createFile(atPath: abandoned, contents: Data("half".utf8)))
        #expect(FileManager.default.createFile(atPath: abandoned + "-wal", contents: nil))
        #expect(try Self.reach(["queue", "add", folder.database, "--", "true"]).status == 0)
        #expect(
            folder.entries.filter { !$0.hasPrefix("jobs.db") || $0.contains(".new-") }
                == ["empty.db", "fifo.db", "notes.db", "zero.db"])
    }

    // MARK: - What a command line holds

    @Test func listQuotesTerminalControlsAndBytesThatAreNotUTF8RunAsGiven() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder()
        // A directory and an argument that are not UTF-8, and arguments that would drive a terminal
        let rawDirectory = Array(folder.path.utf8) + Array("/d".utf8) + [0xFF]
        #expect(try Command.run(["sh", "-c", "mkdir \"$(printf '%s/d\\377' \(folder.path))\""]).status == 0)
        let out = folder.path + "/out"
        let script = """
            cd "$(printf '%s/d\\377' \(folder.path))" && \(ReachBinary.path) queue add \(folder.database) -- \
            sh -c 'printf "%s|%s" "$1" "$(pwd)" > \(out)' x "$(printf 'a\\377b')" && \
            \(ReachBinary.path) queue add \(folder.database) --key k -- echo "$(printf 'x\\033[2J\\r\\033[Ky')" "$(printf '\\342\\200\\256z')"
            """
        let added = try Command.run(["sh", "-c", script])
        #expect(added.status == 0, "\(added)")
        let lines = try Self.list(folder.database)
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix(" x $'a\\xFFb'") == true, "\(lines)")
        #expect(lines.last?.hasSuffix("\techo $'x\\e[2J\\r\\e[Ky' $'\\U0000202Ez'") == true, "\(lines)")
        #expect(!lines.joined().unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" })
        let json = try Self.reach(["queue", "list", folder.database, "--json"]).standardOutput
        #expect(!json.unicodeScalars.contains("\u{202E}") && json.contains("\\u202e"), "\(json)")
        #expect(json.contains("\"commandBase64\":[\"c2g=\",\"LWM=\""), "\(json)")

        let worker = try Worker(folder.database, in: network)
        #expect(worker.errors.waitForLines(2).count == 2)
        #expect(worker.stop() == 0)
        let written = try TestFile.bytes(out)
        #expect(Array(written) == Array("a".utf8) + [0xFF] + Array("b|".utf8) + rawDirectory)
    }
}
