public import NetworkReachabilityCore
import NetworkReachabilityPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension NetworkSettingsReader {
    /// Records `settings` for the network `id` in ``recordedFile`` (the user's own file, or for root the host's), over
    /// what the file said of it, field by field; every other line of the file, comments included, stays. A running
    /// reader of that file (any process's) takes the change at once.
    ///
    /// The file and its directory are made where missing (the directory 0755, the file 0644, whatever the umask) and
    /// written whole to a temporary file that replaces it in one rename, under a lock on the directory, so that a crash
    /// leaves the old file or the new one and two processes recording at once both count. A file that is a symbolic
    /// link stays one: the file it leads to is written.
    ///
    /// - Returns: the file written and the settings it now gives the network.
    /// - Throws: ``NetworkSettingsError``: an id, label or URL that is not valid, a file that another user could
    ///   write or that is malformed (it is left as it is), or one that cannot be written.
    @discardableResult
    public static func record(
        _ settings: NetworkSettings, for id: String, in path: String = recordedFile
    ) throws(NetworkSettingsError) -> (file: String, settings: NetworkSettings) {
        guard let id = NetworkSettingsFile.networkID(id) else {
            throw .invalidValue(reason: "'\(id)' is no network id (16 hexadecimal digits)")
        }
        if let label = settings.label, let problem = NetworkSettingsFile.labelProblem(label) { throw .invalidValue(reason: problem) }
        if let url = settings.validationURL, let problem = NetworkSettingsFile.urlProblem(url) { throw .invalidValue(reason: problem) }
        let owners: Set<UInt32> = [0, UInt32(geteuid())]
        // A file that is a link (to a dotfiles folder, say) stays one: its target is what is written.
        let path = SettingsFileWatch.linkTarget(path) ?? path
        let directory = TrustedFile.directory(of: path)
        try makeDirectory(directory, path: path)
        if let refusal = TrustedFile.directoryRefusal(directory, owners: owners) { throw .refused(path: path, reason: refusal) }
        let lock = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard lock >= 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 && errno == EINTR {}

        let text: String
        switch TrustedFile.contents(of: path, owners: owners, limit: NetworkSettingsFile.sizeLimit) {
        case .absent: text = ""
        case .refused(let reason): throw .refused(path: path, reason: reason)
        case .read(let bytes): text = String(decoding: bytes, as: UTF8.self)
        }
        let before = try NetworkSettingsFile.parse(text, path: path).first { $0.id == id }?.settings ?? NetworkSettings()
        let merged = before.overridden(by: settings)
        let written = try NetworkSettingsFile.recording(merged, for: id, in: text, path: path)
        guard Array(written.utf8).count <= NetworkSettingsFile.sizeLimit else {
            throw .unwritable(path: path, reason: "it would be longer than \(NetworkSettingsFile.sizeLimit) bytes")
        }
        try replace(path, with: Array(written.utf8))
        return (path, merged)
    }

    /// Makes the directories on the way to `directory` that are missing, each 0755 whatever the umask: a directory
    /// other users cannot read would hide root's file from them.
    private static func makeDirectory(_ directory: String, path: String) throws(NetworkSettingsError) {
        if let (component, failure) = Directory.make(directory, mode: 0o755) {
            throw .unwritable(path: path, reason: "\(component) cannot be made: \(String(cString: strerror(failure.errno)))")
        }
    }

    /// Writes `bytes` to a new file beside `path` and renames it over `path`, each step made durable.
    private static func replace(_ path: String, with bytes: [UInt8]) throws(NetworkSettingsError) {
        var template = Array((path + ".XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var failure: String?
        if fchmod(descriptor, 0o644) != 0 { failure = String(cString: strerror(errno)) }
        var offset = 0
        while failure == nil, offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { failure = String(cString: strerror(errno)) } else { offset += count }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        guard let failure else {
            let directory = open(TrustedFile.directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directory >= 0 {
                fsync(directory)
                close(directory)
            }
            return
        }
        unlink(temporary)
        throw .unwritable(path: path, reason: failure)
    }
}
