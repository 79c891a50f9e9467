import NetworkReachabilityLinux
import NetworkReachabilityPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Tells, through inotify (never a timer), when a settings file may say something new: written and closed, renamed
/// into place or away, removed, its mode or owner changed, or a directory on its way made or removed. A write in
/// progress (`>` truncates, then writes) is not a change until the writer closes the file, so a reader never takes a
/// half-written file; a file being made is not one until it is closed, or when it is made as a link.
///
/// Each file's directory is watched, or while it does not exist the nearest directory above it that does; a file that
/// is a symbolic link also has its target's directory watched, where its edits happen.
final class SettingsFileWatch {
    let descriptor: Int32
    private let paths: [String]
    /// The names whose events count: every component of each path and of the target it links to.
    private var names: Set<[UInt8]> = []
    /// The final names of the files themselves, whose creation alone is not a change.
    private var fileNames: Set<[UInt8]> = []
    private var buffer = [UInt8](repeating: 0, count: 8192)

    private static let closeWrite: UInt32 = 0x8, movedFrom: UInt32 = 0x40, movedTo: UInt32 = 0x80, create: UInt32 = 0x100
    private static let delete: UInt32 = 0x200, deleteSelf: UInt32 = 0x400, moveSelf: UInt32 = 0x800, attrib: UInt32 = 0x4
    private static let overflow: UInt32 = 0x4000, ignored: UInt32 = 0x8000, isDirectory: UInt32 = 0x4000_0000

    /// Watches for `paths`; `nil` without inotify.
    init?(paths: [String]) {
        descriptor = SystemCall.inotifyDescriptor()
        guard descriptor >= 0 else { return nil }
        self.paths = paths
        rearm()
    }

    deinit { SystemCall.close(descriptor) }

    /// Watches each file's directory (or the nearest that exists) and a link's target's, as they are now: called
    /// after every change, since a directory made or replaced is a new inode (inotify gives one already watched its
    /// old number).
    func rearm() {
        names = []
        fileNames = []
        for path in paths {
            var followed = [path]
            if let target = Self.linkTarget(path) { followed.append(target) }
            for file in followed {
                names.formUnion(file.split(separator: "/").map { Array($0.utf8) })
                if let last = file.split(separator: "/").last { fileNames.insert(Array(last.utf8)) }
                var directory = TrustedFile.directory(of: file)
                while SystemCall.addWatch(descriptor, path: directory, mask: SystemCall.inotifyChangeMask) == nil {
                    guard directory != "/", directory != "." else { break }
                    directory = TrustedFile.directory(of: directory)
                }
            }
        }
    }

    /// Reads every pending event; whether one may have changed what a file says.
    func drain() -> Bool {
        var changed = false
        while let count = SystemCall.readAvailable(descriptor, into: &buffer) {
            // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of NUL-padded name.
            var offset = 0
            while offset + 16 <= count {
                let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
                let length = Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) })
                let end = min(offset + 16 + length, count)
                let name = Array(buffer[(offset + 16)..<end].prefix { $0 != 0 })
                offset = end
                if mask & (Self.overflow | Self.ignored | Self.deleteSelf | Self.moveSelf) != 0 { changed = true }
                guard !name.isEmpty, names.contains(name) else { continue }
                if mask & Self.isDirectory != 0 || mask & (Self.closeWrite | Self.movedFrom | Self.movedTo | Self.delete | Self.attrib) != 0 {
                    changed = true
                } else if mask & Self.create != 0, !fileNames.contains(name) || isLinkNamed(name) {
                    changed = true
                }
            }
        }
        return changed
    }

    /// Whether one of the files named `name` is a symbolic link now (made with `ln -s`: no write follows).
    private func isLinkNamed(_ name: [UInt8]) -> Bool {
        paths.contains { path in
            var info = stat()
            return Array((path.split(separator: "/").last ?? "").utf8) == name && lstat(path, &info) == 0
                && info.st_mode & S_IFMT == S_IFLNK
        }
    }

    /// Where `path` leads when it is a symbolic link (every link on the way resolved); `nil` otherwise.
    static func linkTarget(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK, let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
