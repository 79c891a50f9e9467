import NetworkReachabilityCore
import CNetlink

/// Tells, through inotify (no polling), when `/etc/resolv.conf`, `/etc/hosts` or systemd-resolved's upstream list
/// (`/run/systemd/resolve/resolv.conf`) change or systemd-resolved starts (its socket is made), and when the named
/// network namespace the subscription lives in is deleted. Its descriptor joins the subscription's `poll`.
///
/// The resolver files are watched through their directory (for files replaced by rename) and one by one (for
/// in-place writes, and for the bind mounts `ip netns exec` puts over them). systemd-resolved's directory exists only
/// while it runs, so `/run/systemd` is watched for its coming. A namespace is deleted when its file under
/// `/run/netns` goes (`ip netns del`): the kernel keeps the namespace alive while anything is inside, so no netlink
/// message would ever say so.
final class ConfigurationFileWatcher {
    /// What a drain found.
    struct Changes: OptionSet {
        let rawValue: Int
        /// `/etc/resolv.conf` or `/etc/hosts` changed: names must be resolved again.
        static let resolverConfiguration = Changes(rawValue: 1)
        /// The namespace's file was removed.
        static let namespaceDeleted = Changes(rawValue: 2)
    }

    /// The watched resolver files, by directory; those in `/etc` also one by one, since `ip netns exec` mounts files
    /// over them.
    static let resolverFiles: [(directory: String, names: Set<String>, eachFile: Bool)] = [
        ("/etc", ["resolv.conf", "hosts"], true),
        // systemd-resolved makes its varlink socket anew when it starts, and may leave its files as they were
        ("/run/systemd/resolve", ["resolv.conf", "io.systemd.Resolve"], false),
        ("/run/systemd", ["resolve"], false),
    ]

    let descriptor: Int32
    /// The resolver directories watched, with the names that count in each.
    private var resolverDirectoryWatches: [Int32: Set<String>] = [:]
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
        // A replaced file is a new inode, and systemd-resolved's directory may have come.
        if changes.contains(.resolverConfiguration) { watchResolverFiles() }
        return changes
    }

    /// Watches each resolver directory and file that exists now; inotify gives a path already watched its old number.
    private func watchResolverFiles() {
        for (directory, names, eachFile) in Self.resolverFiles {
            if let watch = SystemCall.addWatch(descriptor, path: directory, mask: cnl_inotify_change_mask()) {
                resolverDirectoryWatches[watch] = names
            }
            for name in names where eachFile {
                if let watch = SystemCall.addWatch(descriptor, path: "\(directory)/\(name)", mask: cnl_inotify_change_mask()) {
                    resolverFileWatches.insert(watch)
                }
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
            if resolverFileWatches.contains(watch) || resolverDirectoryWatches[watch]?.contains(fileName) == true {
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
