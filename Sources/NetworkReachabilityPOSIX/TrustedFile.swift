#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small file read only when nobody but its trusted owners could have written it: a setting another local user
/// could plant is refused, not believed.
///
/// The file must be a regular file (links followed) owned by one of `owners` that neither its group nor others may
/// write, in a directory owned by one of `owners` that neither its group nor others may write (so nobody else can
/// put a file in its place). It is opened without blocking (a FIFO put there is not waited on) and checked on the
/// open descriptor, so what is read is what was checked.
package enum TrustedFile {
    /// What a read found.
    package enum Contents: Equatable, Sendable {
        /// The file is not there (nor, maybe, its directory).
        case absent
        /// The file's bytes.
        case read([UInt8])
        /// Why it was not believed or could not be read, in words for a log line.
        case refused(String)
    }

    /// Reads `path`, at most `limit` bytes, when it is trusted.
    package static func contents(of path: String, owners: Set<UInt32>, limit: Int) -> Contents {
        let directory = directory(of: path)
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            let error = errno
            return error == ENOENT || error == ENOTDIR ? .absent : .refused("cannot be opened: \(describe(error))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .refused("cannot be examined: \(describe(errno))") }
        if let refusal = refusal(info, kind: "it", owners: owners, type: S_IFREG) { return .refused(refusal) }
        if let refusal = directoryRefusal(directory, owners: owners) { return .refused(refusal) }
        guard info.st_size <= limit else { return .refused("is longer than \(limit) bytes") }
        // One byte more than the limit: a file that grew since `fstat` is told from one that just fits.
        guard let bytes = SmallFile.bytes(from: descriptor, limit: limit + 1) else {
            return .refused("cannot be read: \(describe(errno))")
        }
        guard bytes.count <= limit else { return .refused("is longer than \(limit) bytes") }
        return .read(bytes)
    }

    /// Why `directory` could let someone other than `owners` put a file in it; `nil` when it could not.
    package static func directoryRefusal(_ directory: String, owners: Set<UInt32>) -> String? {
        var info = stat()
        guard stat(directory, &info) == 0 else { return "its directory \(directory) cannot be examined: \(describe(errno))" }
        return refusal(info, kind: "directory \(directory)", owners: owners, type: S_IFDIR)
    }

    /// The directory part of `path` (`/` for a file at the root, `.` for a bare name).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Why a file of `mode` (`st_mode`) owned by `owner` is not a directory (or, with `isDirectory` false, a regular
    /// file) that only `owners` could write, naming it `kind` in the words; `nil` when it is: the one rule of every file
    /// the library believes.
    package static func refusal(
        owner: UInt32, mode: UInt32, kind: String, owners: Set<UInt32>, isDirectory: Bool
    ) -> String? {
        if mode & UInt32(S_IFMT) != UInt32(isDirectory ? S_IFDIR : S_IFREG) {
            return "\(kind) is no \(isDirectory ? "directory" : "regular file")"
        }
        if !owners.contains(owner) {
            return "\(kind) is owned by user \(owner), not by \(owners.sorted().map { "\($0)" }.joined(separator: " or "))"
        }
        if mode & 0o022 != 0 { return "\(kind) may be written by other users (mode \(String(mode & 0o7777, radix: 8)))" }
        return nil
    }

    private static func refusal(_ info: stat, kind: String, owners: Set<UInt32>, type: mode_t) -> String? {
        refusal(owner: UInt32(info.st_uid), mode: UInt32(info.st_mode), kind: kind, owners: owners, isDirectory: type == S_IFDIR)
    }

    private static func describe(_ error: Int32) -> String { String(cString: strerror(error)) }
}
