import Foundation
import Testing
import TestSupport

/// `reach queue add`, `list` and `remove` on files of every kind, with no worker: what is stored is what `list`
/// says, bad input is exit 64 and one line, and a file that is no queue is exit 65 and left byte for byte.
@Suite(.ownThread)
struct QueueCLITests {
    /// A folder of the test's own, removed when it ends.
    private final class Folder {
        let path: String
        init() throws { path = try TestFolder.make("queue-cli") }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        var database: String { path + "/jobs.db" }
        var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
    }

    private static func oneErrorLine(_ result: CommandResult) -> String? {
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        return lines.count == 1 && result.standardOutput.isEmpty ? String(lines[0]) : nil
    }

    @Test func whatAddStoresListPrintsAndRemoveDeletes() throws {
        let folder = try Folder()
        let first = try ReachBinary.run(["queue", "add", folder.database, "--", "sh", "-c", "echo it's done"])
        #expect(first.status == 0 && first.standardOutput == "1\n" && first.standardError.isEmpty)
        let second = try ReachBinary.run([
            "queue", "add", folder.database, "--when", "unmetered,not-roaming", "--when", "validated", "--prohibit",
            "cellular", "--target", "192.0.2.1", "--key", "readings", "--attempts", "3", "--expires", "3600", "--",
            "upload", "--all",
        ])
        #expect(second.standardOutput == "2\n")
        // A job under the same key replaces the queued one; with --keep the queued one stays and its id is printed
        #expect(try ReachBinary.run(["queue", "add", folder.database, "--key", "k", "--", "old"]).standardOutput == "3\n")
        #expect(try ReachBinary.run(["queue", "add", folder.database, "--key", "k", "--", "new"]).standardOutput == "4\n")
        #expect(
            try ReachBinary.run(["queue", "add", folder.database, "--key", "k", "--keep", "--", "newer"]).standardOutput
                == "4\n")

        let list = try ReachBinary.run(["queue", "list", folder.database])
        #expect(list.status == 0)
        #expect(
            list.lines == [
                "1\twaiting\t0/5\treachable\tsh -c 'echo it'\\''s done'",
                "2\twaiting\t0/3\treachable,validated,unmetered,not-roaming,target=192.0.2.1,prohibit=cellular\tupload --all",
                "4\twaiting\t0/5\treachable\tnew",
            ])
        let json = try ReachBinary.run(["queue", "list", folder.database, "--json"]).lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(json.count == 3)
        #expect(json[1]["command"] as? [String] == ["upload", "--all"])
        #expect(json[1]["conditions"] as? [String] == ["reachable", "validated", "unmetered", "not-roaming"])
        #expect(json[1]["key"] as? String == "readings" && json[1]["expiresAt"] is String)
        #expect(json[1]["prohibitedTypes"] as? [String] == ["cellular"] && json[1]["target"] as? String == "192.0.2.1")
        #expect(json[0]["directory"] as? String == FileManager.default.currentDirectoryPath)

        #expect(try ReachBinary.run(["queue", "remove", folder.database, "2"]).status == 0)
        let again = try ReachBinary.run(["queue", "remove", folder.database, "2"])
        #expect(again.status == 1 && Self.oneErrorLine(again) == "reach: no job 2 in the queue")
        #expect(try ReachBinary.run(["queue", "list", folder.database]).lines.map { $0.prefix(2) } == ["1\t", "4\t"])
    }

    @Test func theWorkersUnitIsValidAndHardenedToAtMost2Point5() throws {
        let folder = try Folder()
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/systemd/reach-queue.service")
        // The unit as installed, but running the binary under test (verify checks that ExecStart exists)
        let unit = folder.path + "/reach-queue.service"
        try TestFile.text(example.path).replacingOccurrences(of: "/usr/local/bin/reach", with: ReachBinary.path)
            .write(toFile: unit, atomically: true, encoding: .utf8)
        let verified = try Command.run(["systemd-analyze", "verify", unit])
        // Only the man page, which is not installed here, may be missing
        let complaints = verified.standardError.split(separator: "\n").filter { !$0.contains("Command 'man reach(1)'") }
        #expect(complaints.isEmpty, "\(complaints)")
        let rated = try Command.run(["systemd-analyze", "security", "--offline=yes", "--threshold=25", unit])
        #expect(rated.status == 0, "\(rated.standardOutput.split(separator: "\n").last ?? "")")
    }

    @Test func reachQueueWithoutTheQueueProgramIsExit69WithOneLine() throws {
        // reach alone in a folder (a hard link: its path is the folder's), and no reach-queue on PATH
        let folder = try Folder()
        let lonely = folder.path + "/reach"
        try FileManager.default.linkItem(atPath: ReachBinary.path, toPath: lonely)
        let result = try Command.run(["env", "PATH=/nonexistent", lonely, "queue", "list", folder.database])
        #expect(result.status == 69)
        #expect(
            Self.oneErrorLine(result)
                == "reach: 'reach queue' needs the reach-queue program, beside reach (\(folder.path)/reach-queue) or on PATH")
        // Beside it, reach-queue gets the arguments after `queue`, its exit status and its lines
        try FileManager.default.linkItem(atPath: ReachBinary.queuePath, toPath: folder.path + "/reach-queue")
        let forwarded = try Command.run(["env", "PATH=/nonexistent", lonely, "queue", "list", folder.database])
        #expect(forwarded.status == 66 && Self.oneErrorLine(forwarded)?.contains("no such file") == true)
    }

    @Test func eightProcessesCreatingOneFileAtOnceAllAddTheirJob() throws {
        // Four rounds: a lost commit (two processes printing one id) showed in about two rounds of five
        let folder = try Folder()
        for round in 1...4 {
            let database = folder.path + "/round-\(round).db"
            let outputs = (0..<8).map { _ in LineCollector() }
            let adders = try outputs.map { output in
                try Subprocess([ReachBinary.queuePath, "add", database, "--", "true"], standardOutput: output.pipe)
            }
            #expect(adders.map { $0.wait() } == Array(repeating: .exited(0), count: 8), "round \(round)")
            #expect(outputs.flatMap { $0.waitForLines(1) }.sorted() == (1...8).map(String.init), "round \(round)")
            #expect(try ReachBinary.run(["queue", "list", database]).lines.count == 8, "round \(round)")
        }
        // and no file of the making is left beside them
        #expect(folder.entries.allSatisfy { !$0.contains(".new-") }, "\(folder.entries)")
    }

    @Test func theBoundRefusesTheJobWithExit75AndKeepsTheOthers() throws {
        let folder = try Folder()
        for expected in ["1", "2"] {
            let added = try ReachBinary.run(["queue", "add", folder.database, "--max-jobs", "2", "--", "true"])
            #expect(added.lines == [expected])
        }
        let refused = try ReachBinary.run(["queue", "add", folder.database, "--max-jobs", "2", "--", "true"])
        #expect(refused.status == 75)
        #expect(Self.oneErrorLine(refused) == "reach: the queue is full: it holds 2 jobs, its most")
        #expect(try ReachBinary.run(["queue", "list", folder.database]).lines.count == 2)
    }

    @Test(arguments: [
        ["add", "DB"], ["add", "DB", "--"], ["add", "DB", "--when", "sunny", "--", "true"],
        ["add", "DB", "--when", "unmetered,", "--", "true"], ["add", "DB", "--attempts", "0", "--", "true"],
        ["add", "DB", "--attempts", "9223372036854775807", "--", "true"], ["add", "DB", "--expires", "-5", "--", "true"],
        ["add", "DB", "--expires", "1e99", "--", "true"], ["add", "DB", "--retry-delay", "0", "--", "true"],
        ["add", "DB", "--target", "bad..name", "--", "true"], ["add", "DB", "--keep", "--", "true"],
        ["add", "DB", "--require", "bogus", "--", "true"], ["add", "DB", "--max-jobs", "0", "--", "true"],
        ["add", "DB", "--not-before", "9999-01-01T00:00:00Z", "--", "true"], ["add", "DB", "--delay", "9", "--expires", "9", "--", "true"],
        ["add", "DB", "--not-before", "2026-11-29T03:00:00", "--", "true"],
        ["add", "DB", "true"], ["remove", "DB", "abc"], ["remove", "DB", "-1"], ["remove", "DB", "99999999999999999999"],
        ["remove", "DB"], ["list"], ["run", "DB", "--concurrency", "0"], ["run", "DB", "--validate", "http://x:99999/"],
    ])
    func badInputExits64WithOneLineAndCreatesNoFile(arguments: [String]) throws {
        let folder = try Folder()
        let result = try ReachBinary.run(["queue"] + arguments.map { $0 == "DB" ? folder.database : $0 })
        #expect(result.status == 64)
        #expect(Self.oneErrorLine(result)?.hasPrefix("reach: ") == true, "\(result.standardError)")
        #expect(folder.entries.isEmpty)
    }

    @Test func aFileThatIsNoQueueIsExit65AndLeftByteForByte() throws {
        let folder = try Folder()
        let other = folder.path + "/other.sqlite"
        try Command.run(
            [
                "python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table t(x)'); c.commit()",
                other,
            ],
            check: true)
        let text = folder.path + "/notes.txt"
        try Data("not a database, but the user's notes\n".utf8).write(to: URL(fileURLWithPath: text))
        let random = folder.path + "/random.bin"
        try Data((0..<65_536).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: random))
        let truncated = folder.path + "/truncated.db"
        #expect(try ReachBinary.run(["queue", "add", truncated, "--", "true"]).status == 0)
        let whole = try TestFile.bytes(truncated)
        try whole.prefix(whole.count / 2 + 100).write(to: URL(fileURLWithPath: truncated))
        let entries = folder.entries

        for file in [other, text, random] {
            let before = try TestFile.bytes(file)
            for arguments in [["add", file, "--", "true"], ["list", file], ["remove", file, "1"], ["run", file]] {
                let result = try ReachBinary.run(["queue"] + arguments)
                #expect(result.status == 65, "\(arguments)")
                #expect(Self.oneErrorLine(result) == "reach: '\(file)' is not a queue database; it was left as it is")
            }
            #expect(try TestFile.bytes(file) == before)
        }
        #expect(folder.entries == entries)
        // A queue cut short is a clear error too, never a crash, and it is not written to
        let cut = try ReachBinary.run(["queue", "list", truncated])
        #expect([65, 74].contains(cut.status) && Self.oneErrorLine(cut) != nil, "\(cut.standardError)")
        #expect(try TestFile.bytes(truncated) == whole.prefix(whole.count / 2 + 100))

        let missing = try ReachBinary.run(["queue", "list", folder.path + "/none.db"])
        #expect(missing.status == 66 && Self.oneErrorLine(missing)?.contains("no such file") == true)
        let noFolder = try ReachBinary.run(["queue", "add", folder.path + "/no/such/folder.db", "--", "true"])
        #expect(noFolder.status == 66 && Self.oneErrorLine(noFolder)?.contains("/no/such/folder.db") == true)
    }
}
