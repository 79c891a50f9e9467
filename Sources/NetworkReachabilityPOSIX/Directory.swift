#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Directories: their entries, read with `opendir` and `readdir` (the named network namespaces, a process's
/// descriptors), and making one with its parents.
package enum Directory {
    /// The names in the directory at `path`, without `.` and `..`; `nil` when it cannot be opened.
    package static func names(_ path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Makes `path` and each missing parent (`mkdir -p`), every directory made with exactly `mode` whatever the
    /// process's umask: root's umask is often 077, which would make a directory meant for every user (`/etc/reach`,
    /// `/var/lib/reach`) readable by root alone. Directories already there are left as they are.
    ///
    /// - Returns: `nil` once `path` is a directory (or something `mkdir` finds there), else the component that could
    ///   not be made, with the failure.
    package static func make(_ path: String, mode: UInt32) -> (component: String, failure: SystemFailure)? {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, mode) == 0 {
                chmod(prefix, mode)
            } else if errno != EEXIST {
                return (prefix, SystemFailure(call: "mkdir", errno: errno))
            }
        }
        return nil
    }
}
