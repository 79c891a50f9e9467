#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The few file operations the queue makes itself, by path, never following a link at the last step.
enum SystemFile {
    /// Whether something (a link included) is at `path`.
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// The size of the regular file at `path`, if there is one.
    static func size(_ path: String) -> Int? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(status.st_size)
    }

    /// Up to `count` first bytes of the regular file at `path`; `nil` when it cannot be opened or is not one.
    static func prefix(_ path: String, count: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + filled, count - filled, off_t(filled)) }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { break }
            filled += read
        }
        return Array(bytes[0..<filled])
    }

    /// Bytes an unprivileged process may still write in the file system that holds `path`'s directory.
    static func freeBytes(beside path: String) -> Int? {
        var status = statvfs()
        guard statvfs(QueueFileHandle.directory(of: path), &status) == 0 else { return nil }
        return Int(status.f_bavail) * Int(status.f_frsize)
    }

    /// Makes a file of `bytes` allocated bytes at `path`, where nothing is; whether it did.
    static func allocate(_ path: String, bytes: Int, mode: mode_t) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return false }
        let allocated = posix_fallocate(descriptor, 0, off_t(bytes)) == 0
        close(descriptor)
        if !allocated { _ = unlink(path) }
        return allocated
    }

    /// The names in a directory.
    static func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        return names
    }

    /// Removes a database file SQLite made and its journals.
    static func removeWithJournals(_ path: String) {
        for suffix in [""] + QueueFileHandle.journalSuffixes { _ = unlink(path + suffix) }
    }
}
