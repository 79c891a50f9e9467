import Foundation

/// Folders of a test's own under `/tmp`, named `nrt-<kind>-<pid>-<number>` so that ``StaleTestNetworks`` can remove
/// those of a test process that died before its cleanup. Whoever makes one removes it.
public enum TestFolder {
    private static let counter = NSLock()
    nonisolated(unsafe) private static var next = 0  // guarded by `counter`

    /// Makes a new, empty folder for `kind` (`bus`, `modem`, `resolved`) and returns its path.
    public static func make(_ kind: String) throws -> String {
        let number = counter.withLock {
            next += 1
            return next
        }
        let path = "/tmp/nrt-\(kind)-\(getpid())-\(number)"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The process a folder's name names, for the sweep: `nrt-<kind>-<pid>-<number>`.
    static func owner(of name: String) -> pid_t? {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "nrt", Int(parts[3]) != nil else { return nil }
        return pid_t(parts[2])
    }
}
