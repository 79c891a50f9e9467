import CNetlink

/// Tells, through inotify (no polling), when `/etc/resolv.conf` or `/etc/hosts` change, and when the named
/// network namespace the subscription lives in is deleted. Its descriptor joins the subscription's `poll`.
///
/// The resolver files are watched through their directory (for files replaced by rename) and one by one (for
/// in-place writes, and for the bind mounts `ip netns exec` puts over them). A namespace is deleted when its
/// file under `/run/netns` goes (`ip netns del`): the kernel keeps the namespace alive while anything is inside,
/// so no netlink message would ever say so.
final class ConfigurationFileWatcher {
    /// What a drain found.
    struct Changes: OptionSet {
        let rawValue: Int
        /// `/etc/resolv.conf` or `/etc/hosts` changed: names must be resolved again.
        static let resolverConfiguration = Changes(rawValue: 1)
        /// The namespace's file was removed.
        static let namespaceDeleted = Changes(rawValue: 2)
    }

    static let resolverDirectory = "/etc"
    static let resolverFileNames: Set<String> = ["resolv.conf", "hosts"]

    let descriptor: Int32
    private var resolverDirectoryWatch: Int32?
    private var resolverFileWatches: Set<Int32> = []
    private var namespaceDirectoryWatch: Int32?
    private let namespaceFileName: String?
    private var buffer = [UInt8](repeating: 0, count: 4096)
    private var isClosed = false

    /// Opens the watches; `nil` when inotify is unavailable (then only network changes trigger re-resolution).
    ///
    /// - Parameter namespace: the named namespace whose deletion to watch for, if any.
    init?(namespace: NetworkNamespace?) {
        descriptor = cnl_inotify_open()
        guard descriptor >= 0 else { return nil }
        resolverDirectoryWatch = SystemCall.addWatch(descriptor, path: Self.resolverDirectory, mask: cnl_inotify_change_mask())
        if let path = namespace?.path, let slash = path.lastIndex(of: "/") {
            namespaceFileName = String(path[path.index(after: slash)...])
            namespaceDirectoryWatch = SystemCall.addWatch(
                descriptor, path: String(path[..<slash]), mask: cnl_inotify_change_mask())
        } else {
            namespaceFileName = nil
        }
        watchResolverFiles()
    }

    deinit { close() }

    /// Closes the inotify descriptor and with it every watch.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        SystemCall.close(descriptor)
    }

    /// Reads every pending event and says what they concerned.
    func drain() -> Changes {
        var changes: Changes = []
        while let count = SystemCall.readAvailable(descriptor, into: &buffer) {
            changes.formUnion(classify(buffer[0..<count]))
        }
        if changes.contains(.resolverConfiguration) { watchResolverFiles() }  // a replaced file is a new inode
        return changes
    }

    private func watchResolverFiles() {
        for name in Self.resolverFileNames {
            if let watch = SystemCall.addWatch(
                descriptor, path: "\(Self.resolverDirectory)/\(name)", mask: cnl_inotify_change_mask())
            {
                resolverFileWatches.insert(watch)
            }
        }
    }

    /// Walks `struct inotify_event` records (wd, mask, cookie, len, name[len]) with every length checked.
    private func classify(_ events: ArraySlice<UInt8>) -> Changes {
        var offset = 0
        var changes: Changes = []
        while let watch = events.int32(at: offset), let mask = events.uint32(at: offset + 4),
            let nameLength = events.uint32(at: offset + 12).map(Int.init),
            let name = events.bytes(at: offset + 16, count: nameLength)
        {
            let fileName = name.cString
            if resolverFileWatches.contains(watch)
                || (watch == resolverDirectoryWatch && Self.resolverFileNames.contains(fileName))
            {
                changes.insert(.resolverConfiguration)
            }
            if watch == namespaceDirectoryWatch, fileName == namespaceFileName, mask & cnl_inotify_removal_mask() != 0 {
                changes.insert(.namespaceDeleted)
            }
            offset += 16 + nameLength
        }
        return changes
    }
}
