import Foundation
import NetworkReachabilityPOSIX
import Testing
import TestSupport

/// The library's one whole-file reader: bounded, and clean under LeakSanitizer where Foundation's readers leak 4 KiB
/// for every empty file (CI runs this file under ASan, whose leak check fails the run).
struct SmallFileTests {
    @Test func anEmptyFileIsEmptyAndLeaksNothing() throws {
        let folder = try TestFolder.make("smallfile")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(FileManager.default.createFile(atPath: "\(folder)/empty", contents: nil))
        for _ in 0..<3 {
            #expect(SmallFile.bytes("\(folder)/empty", limit: 8192) == [])
            #expect(SmallFile.text("\(folder)/empty", limit: 8192) == "")
        }
    }

    @Test func noMoreThanTheLimitIsReadEvenFromAFileThatNeverEnds() throws {
        let folder = try TestFolder.make("smallfile")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("0123456789".utf8).write(to: URL(filePath: "\(folder)/ten"))
        #expect(SmallFile.text("\(folder)/ten", limit: 4) == "0123")
        #expect(SmallFile.text("\(folder)/ten", limit: 10) == "0123456789")
        #expect(SmallFile.text("\(folder)/ten", limit: 11) == "0123456789")
        #expect(SmallFile.bytes("\(folder)/ten", limit: 0) == [])
        // Longer than one 64 KiB read, and endless: exactly the limit comes back.
        #expect(SmallFile.bytes("/dev/zero", limit: 200_001)?.count == 200_001)
        #expect(SmallFile.bytes("/proc/self/status", limit: 1 << 16).map { !$0.isEmpty } == true)  // size 0 in stat
    }

    @Test func whatCannotBeOpenedOrReadIsNil() throws {
        let folder = try TestFolder.make("smallfile")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(SmallFile.bytes("\(folder)/missing", limit: 10) == nil)
        #expect(SmallFile.bytes(folder, limit: 10) == nil)  // a folder: read fails with EISDIR
    }
}
