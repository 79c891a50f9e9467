public import Foundation
import NetworkReachabilityPOSIX

/// Files the tests read whole (logs, pid files, `/proc`, the repository's documents), read by the library's
/// `SmallFile` up to 64 MiB. Foundation's whole-file readers leak 4 KiB for every empty file, which fails the
/// AddressSanitizer run when a log or a counter file is read before anything was written to it.
public enum TestFile {
    /// Why a file could not be read.
    public struct Unreadable: Error, CustomStringConvertible {
        public var path: String
        public var description: String { "cannot read \(path)" }
    }

    /// The largest file read; a test's logs stay far below it.
    public static let limit = 64 << 20

    /// The file's bytes.
    public static func bytes(_ path: String) throws -> Data {
        guard let bytes = SmallFile.bytes(path, limit: limit) else { throw Unreadable(path: path) }
        return Data(bytes)
    }

    /// The file's text (ill-formed UTF-8 repaired).
    public static func text(_ path: String) throws -> String {
        guard let text = SmallFile.text(path, limit: limit) else { throw Unreadable(path: path) }
        return text
    }
}
