#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The queue's database file, opened by the queue itself before SQLite opens it, and the checks that make it safe
/// where other local users are, as cron, `at` and sshd's StrictModes check theirs:
///
/// - It is opened without following a link and without blocking, and must be a regular file with one name: a FIFO
///   would hang every process, a symbolic or hard link would give one file two workers (the worker's files follow the
///   name).
/// - A worker runs only a file that its own user or root owns, that others may not write, in a directory that its
///   own user or root owns and others may not write (unless sticky): root never runs commands another user put there.
///   Others' access to the file and its journals is taken away (command lines often hold tokens).
/// - The worker's lock is an open-file-description lock on one byte of this file far beyond anything SQLite locks:
///   it belongs to the file itself, whatever its name, and only who may open the file may take it.
///
/// The descriptor stays open until SQLite's connections are closed: closing any descriptor of a file drops every POSIX
/// lock the process holds on it, SQLite's included.
package final class QueueFileHandle: Sendable {
    /// The file, as given.
    let path: String
    /// The open file: read and write, or read only.
    let descriptor: Int32
    /// Its owner and group.
    let owner: uid_t
    let group: gid_t

    /// SQLite's files beside the database.
    static let journalSuffixes = ["-wal", "-shm", "-journal"]
    /// Every file beside the database that a process opens by its name: SQLite's and the worker's reserve.
    static let besideSuffixes = journalSuffixes + [".reserve"]
    /// The byte the worker locks: SQLite locks bytes from 1 GiB on, and only those.
    private static let lockOffset = off_t(1) << 62
    /// `F_OFD_SETLK` (Linux 3.15), which Glibc's module does not export.
    private static let setOpenFileDescriptionLock: Int32 = 37

    /// Opens and checks the file at `path`.
    ///
    /// - Throws: ``QueueError/cannotOpen(path:reason:)`` when it is missing or may not be opened,
    ///   ``QueueError/unsafe(path:reason:)`` when it is a link, not a regular file, or has several names.
    init(path: String, writable: Bool) throws(QueueError) {
        self.path = path
        let flags = (writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY
        let descriptor = open(path, flags)
        guard descriptor >= 0 else {
            switch errno {
            case ELOOP: throw .unsafe(path: path, reason: "it is a symbolic link; name the file it points to")
            case EISDIR, ENXIO: throw .unsafe(path: path, reason: "it is not a regular file")
            case ENOSPC: throw .full(reason: "the disk is full")
            default: throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
            }
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_nlink == 1 else {
            let isRegular = status.st_mode & S_IFMT == S_IFREG
            close(descriptor)
            throw .unsafe(
                path: path,
                reason: isRegular
                    ? "it has \(status.st_nlink) names (hard links); give it one" : "it is not a regular file")
        }
        self.descriptor = descriptor
        owner = status.st_uid
        group = status.st_gid
    }

    deinit { close(descriptor) }

    /// Checks that the worker may run this file's commands as its own user, and takes from others the access they
    /// have to the file and its journals.
    ///
    /// - Throws: ``QueueError/unsafe(path:reason:)`` when another user owns the file or its directory, or others may
    ///   write either (a sticky directory excepted).
    func checkRunnable() throws(QueueError) {
        let user = geteuid()
        guard owner == user || owner == 0 else {
            throw .unsafe(path: path, reason: "it belongs to user \(owner), whose commands would run as user \(user)")
        }
        var status = stat()
        _ = fstat(descriptor, &status)
        if owner == user, status.st_mode & 0o007 != 0 { _ = fchmod(descriptor, status.st_mode & 0o7770) }
        guard owner == user || status.st_mode & S_IWOTH == 0 else {
            throw .unsafe(path: path, reason: "others may write it")
        }
        let directory = Self.directory(of: path)
        guard stat(directory, &status) == 0 else {
            throw .cannotOpen(path: path, reason: "its directory: \(String(cString: strerror(errno)))")
        }
        guard status.st_uid == user || status.st_uid == 0 else {
            throw .unsafe(path: path, reason: "its directory \(directory) belongs to user \(status.st_uid)")
        }
        guard status.st_mode & S_IWOTH == 0 || status.st_mode & S_ISVTX != 0 else {
            throw .unsafe(path: path, reason: "anyone may write its directory \(directory)")
        }
        guard status.st_mode & S_IWGRP == 0 || status.st_gid == group || status.st_mode & S_ISVTX != 0 else {
            throw .unsafe(path: path, reason: "group \(status.st_gid), not the file's, may write its directory \(directory)")
        }
        try checkFilesBeside()
    }

    /// Checks every file beside the database that exists (``checkBeside(_:)``): before SQLite opens one, for every
    /// process, since a file planted in a shared directory would receive the jobs' command lines.
    func checkFilesBeside() throws(QueueError) {
        for suffix in Self.besideSuffixes { try checkBeside(path + suffix) }
    }

    /// Checks a file used beside the database, if it exists: a regular file with one name, owned by who may write the
    /// database (root, its owner, this user, or its group where the group may write it), that others may not open
    /// (this user's own loses others' access instead). One another process removes as it is checked (SQLite removes
    /// the log when its last connection closes) is gone, not unsafe.
    ///
    /// - Throws: ``QueueError/unsafe(path:reason:)`` otherwise.
    func checkBeside(_ beside: String) throws(QueueError) {
        var status = stat()
        guard lstat(beside, &status) == 0, status.st_nlink > 0 || status.st_mode & S_IFMT != S_IFREG else { return }
        guard status.st_mode & S_IFMT == S_IFREG, status.st_nlink == 1 else {
            throw .unsafe(path: path, reason: "\(beside) is not a regular file with one name")
        }
        guard mayWrite(owner: status.st_uid, group: status.st_gid) else {
            throw .unsafe(path: path, reason: "\(beside) belongs to user \(status.st_uid)")
        }
        guard status.st_mode & 0o007 != 0 else { return }
        guard status.st_uid == geteuid(), chmod(beside, status.st_mode & 0o7770) == 0 || errno == ENOENT else {
            throw .unsafe(path: path, reason: "others may open \(beside)")
        }
    }

    /// Whether a file with this owner and group was made by someone who may write the database anyway.
    func mayWrite(owner: uid_t, group: gid_t) -> Bool {
        var status = stat()
        let groupWrites = fstat(descriptor, &status) == 0 && status.st_mode & S_IWGRP != 0 && group == self.group
        return owner == 0 || owner == self.owner || owner == geteuid() || groupWrites
    }

    /// Takes the worker's lock; whether it was free. The lock lasts while this descriptor, or a copy a command
    /// inherited, is open, or until ``unlock()``.
    func lock() -> Bool { setLock(Int16(F_WRLCK)) }

    /// Gives the worker's lock back, keeping the descriptor open.
    func unlock() { _ = setLock(Int16(F_UNLCK)) }

    private func setLock(_ type: Int16) -> Bool {
        var region = Glibc.flock()
        region.l_type = type
        region.l_whence = Int16(SEEK_SET)
        region.l_start = Self.lockOffset
        region.l_len = 1
        return fcntl(descriptor, Self.setOpenFileDescriptionLock, &region) == 0
    }

    /// The directory a path names its file in.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The name of the file at `path` in its directory: what follows the last `/`.
    static func name(of path: String) -> String {
        String(path[(path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex)...])
    }
}
