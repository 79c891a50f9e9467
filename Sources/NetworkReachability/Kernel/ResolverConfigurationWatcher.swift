import CNetlink
import Glibc

/// Tells when `/etc/resolv.conf` or `/etc/hosts` change, through inotify (no polling): the directory, for
/// files replaced by rename, and the files themselves, for in-place writes and for the bind mounts that
/// `ip netns exec` puts over them. Its descriptor joins the subscription's `poll`.
final class ResolverConfigurationWatcher {
    static let directory = "/etc"
    static let fileNames: Set<String> = ["resolv.conf", "hosts"]

    let descriptor: Int32
    private var directoryWatch: Int32 = -1
    private var fileWatches: Set<Int32> = []
    private var buffer = [UInt8](repeating: 0, count: 4096)

    /// Opens the watches; `nil` when inotify is unavailable (then only network changes trigger re-resolution).
    init?() {
        descriptor = cnl_inotify_open()
        guard descriptor >= 0 else { return nil }
        directoryWatch = inotify_add_watch(descriptor, Self.directory, cnl_inotify_change_mask())
        watchFiles()
    }

    private var isClosed = false

    deinit { close() }

    /// Closes the inotify descriptor and with it every watch.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        SystemCall.close(descriptor)
    }

    /// Reads every pending event; returns whether any concerned the resolver's files.
    func drain() -> Bool {
        var relevant = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            relevant = relevant || concernsResolverFiles(buffer[0..<count])
        }
        if relevant { watchFiles() }  // a replaced file is a new inode: watch it again
        return relevant
    }

    private func watchFiles() {
        for name in Self.fileNames {
            let watch = inotify_add_watch(descriptor, "\(Self.directory)/\(name)", cnl_inotify_change_mask())
            if watch >= 0 { fileWatches.insert(watch) }
        }
    }

    /// Walks `struct inotify_event` records (wd, mask, cookie, len, name[len]) with every length checked.
    private func concernsResolverFiles(_ events: ArraySlice<UInt8>) -> Bool {
        var offset = 0
        var relevant = false
        while let watch = events.int32(at: offset), let nameLength = events.uint32(at: offset + 12).map(Int.init),
            let name = events.bytes(at: offset + 16, count: nameLength)
        {
            if fileWatches.contains(watch) || (watch == directoryWatch && Self.fileNames.contains(name.cString)) {
                relevant = true
            }
            offset += 16 + nameLength
        }
        return relevant
    }
}
