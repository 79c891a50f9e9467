import FoundationEssentials
import NetworkReachabilityQueue

/// The queue file `list` and `remove` read: an existing one only, where `add` and `run` create it.
enum QueueFile {
    /// Opens the queue at `path`.
    ///
    /// - Throws: ``QueueError/cannotOpen(path:reason:)`` when there is no file, and as `JobStore` opens one.
    static func open(_ path: String) throws(QueueError) -> JobStore {
        guard FileManager.default.fileExists(atPath: path) else { throw .cannotOpen(path: path, reason: "no such file") }
        return try JobStore(path: path)
    }
}
