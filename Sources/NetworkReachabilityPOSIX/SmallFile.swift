#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file read whole with `open` and `read`, never more than a bound: sysfs attributes, resolv.conf, `reach serve`'s
/// web configuration, and the tests' files.
///
/// Not Foundation's whole-file readers (`String(contentsOfFile:)`, `FileManager.contents(atPath:)`,
/// `Data(contentsOf:)`): they read a file of any size before its length can be checked, and with Swift 6.3.1 on Linux
/// each leaks a 4 KiB buffer for every empty file it reads (measured with LeakSanitizer; `SmallFileTests` reads empty
/// files under it in CI).
package enum SmallFile {
    /// The file's first `limit` bytes (all of it when it is shorter); `nil` when it cannot be opened or a read fails.
    /// Ask for one byte more than you accept to tell a file that is too long from one that just fits.
    package static func bytes(_ path: String, limit: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return bytes(from: descriptor, limit: limit)
    }

    /// What is left to read from the open `descriptor`, at most `limit` bytes; `nil` when a read fails (`errno` says
    /// why). The caller keeps and closes the descriptor.
    package static func bytes(from descriptor: Int32, limit: Int) -> [UInt8]? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(max(limit, 0), 64 * 1024))
        while buffer.count < limit {
            let wanted = min(chunk.count, limit - buffer.count)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, wanted) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            buffer.append(contentsOf: chunk[..<count])
        }
        return buffer
    }

    /// The file's first `limit` bytes as UTF-8 text (ill-formed sequences repaired); `nil` when it cannot be read.
    package static func text(_ path: String, limit: Int) -> String? {
        bytes(path, limit: limit).map { String(decoding: $0, as: UTF8.self) }
    }

    /// What changes when the file at `path` (links followed) is written, replaced or renamed over: its device, inode,
    /// size and modification and change times; `nil` when it does not exist. Equal versions: the same contents, as
    /// far as the file system tells.
    package static func version(_ path: String) -> [Int64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [
            Int64(bitPattern: UInt64(info.st_dev)), Int64(bitPattern: UInt64(info.st_ino)), Int64(info.st_size),
            Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_ctim.tv_sec), Int64(info.st_ctim.tv_nsec),
        ]
    }
}
