import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityQueue

/// The queue file `list` and `remove` read: an existing one only, where `add` and `run` create it.
enum QueueFile {
    /// Opens the queue at `path`; `readOnly` (for `list`) writes nothing to it, and needs only read access.
    ///
    /// - Throws: ``QueueError/cannotOpen(path:reason:)`` when there is no file, and as `JobStore` opens one.
    static func open(_ path: String, readOnly: Bool = false) throws(QueueError) -> JobStore {
        var status = stat()
        guard lstat(path, &status) == 0 else { throw .cannotOpen(path: path, reason: "no such file") }
        return try JobStore(path: path, readOnly: readOnly)
    }
}
