#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Tells a process that follows a queue (`reach queue wait`, `log --follow`) that the file may have changed, without
/// polling it: inotify on its directory reports each write to its write-ahead log (every commit appends to it) and
/// each close of `PATH.worker` (other processes' changes).
///
/// A commit is in the log a moment before other processes can read it, so a follower reads once at a change and
/// once more ``settleMilliseconds`` after the last change: what it reads then is the last commit.
package final class QueueChangeWatch {
    private let inotify: Int32
    private let names: Set<String>
    /// Whether the follower read after the last change settled (no change for ``settleMilliseconds``).
    private var settled = true

    /// How long after the last change a follower reads once more.
    package static let settleMilliseconds: Int32 = 50

    /// Watches the directory of the queue at `path`.
    ///
    /// - Throws: ``QueueError/cannotOpen(path:reason:)`` when its directory cannot be watched.
    package init(path: String) throws(QueueError) {
        let directory = QueueFileHandle.directory(of: path)
        let base = QueueFileHandle.name(of: path)
        names = [base, base + "-wal", base + ".worker"]
        inotify = inotify_init1(Int32(IN_CLOEXEC))
        let mask = IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE
        guard inotify >= 0, inotify_add_watch(inotify, directory, UInt32(mask)) >= 0 else {
            let reason = String(cString: strerror(errno))
            if inotify >= 0 { close(inotify) }
            throw .cannotOpen(path: path, reason: "cannot watch its directory: \(reason)")
        }
    }

    deinit { close(inotify) }

    /// Blocks until the follower should read again: at a change, and once more ``settleMilliseconds`` after the last.
    package func waitForLook() {
        settled = !wait(timeout: settled ? -1 : Self.settleMilliseconds)
    }

    /// Blocks until the file changes (`true`), or for `timeout` milliseconds (`false`; -1: no limit).
    private func wait(timeout: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            var watched = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watched, 1, timeout)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return false }
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard count > 0 else { return false }
            if concernsQueue(buffer[..<count]) { return true }
        }
    }

    /// Whether an event in `events` names the queue's file, its log or its signal file.
    private func concernsQueue(_ events: ArraySlice<UInt8>) -> Bool {
        let header = MemoryLayout<inotify_event>.size
        var offset = events.startIndex
        while offset + header <= events.endIndex {
            let length = events[(offset + 12)..<(offset + 16)].withUnsafeBytes { Int($0.loadUnaligned(as: UInt32.self)) }
            let end = offset + header + length
            guard end <= events.endIndex else { return true }
            let name = String(decoding: events[(offset + header)..<end].prefix { $0 != 0 }, as: UTF8.self)
            if names.contains(name) { return true }
            offset = end
        }
        return false
    }
}
