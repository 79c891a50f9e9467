import NetworkReachabilityCore
import NetworkReachabilityPOSIX
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The per-host key every `NetworkIdentity` is hashed under, so that an identity seen in a log or a metric says
/// nothing of the MAC address behind it, and the same network has the same identity on this host for every user,
/// process and boot.
///
/// Derived from the machine ID (`/etc/machine-id`, or D-Bus's copy), as systemd asks applications to do: an HMAC of
/// the application's own name under the ID, never the ID itself. A host without one (a bare container) gets a random
/// key kept in `/var/lib/reach/identity-salt`, written by root and readable by every user, as the machine ID is; a
/// user finds none there keeps one in `$XDG_STATE_HOME/reach/` (`~/.local/state/reach/`) of a home that is theirs.
/// A key file must be a regular file of 32 bytes owned by root or the user and writable by nobody else, in a
/// directory writable by nobody else: another user cannot plant a key. With no key to be had, there is no identity
/// (`nil`), never one that changes from run to run.
enum HostSalt {
    /// The key, found once per process; `nil` when none can be read or kept.
    static let current: [UInt8]? = {
        for path in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
            if let text = SmallFile.text(path, limit: 64), let id = machineID(text) { return derived(from: id) }
        }
        if let key = keptKey(in: "/var/lib/reach", owner: 0, readableByAll: true) { return key }
        let user = geteuid()
        guard user != 0, let directory = userStateDirectory(of: user) else { return nil }
        return keptKey(in: directory, owner: user, readableByAll: false)
    }()

    /// The application-specific key of a machine ID.
    static func derived(from machineID: [UInt8]) -> [UInt8] {
        SHA256.authenticationCode(Array("swift-network-reachability network identity".utf8), key: machineID)
    }

    /// The 32 hexadecimal digits of a machine ID file, `nil` for an empty or malformed one (systemd writes
    /// "uninitialized" during first boot).
    static func machineID(_ text: String) -> [UInt8]? {
        var digits = Substring(text)
        while digits.last == "\n" { digits.removeLast() }
        guard digits.utf8.count == 32, digits.allSatisfy(\.isHexDigit) else { return nil }
        return Array(digits.utf8)
    }

    /// `$XDG_STATE_HOME/reach`, or `$HOME/.local/state/reach`, when that home is an absolute path the user owns.
    private static func userStateDirectory(of user: uid_t) -> String? {
        if let state = getenv("XDG_STATE_HOME").map({ String(cString: $0) }), state.hasPrefix("/"), isOwned(state, by: user) {
            return state + "/reach"
        }
        guard let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/"), home != "/",
            isOwned(home, by: user)
        else { return nil }
        return home + "/.local/state/reach"
    }

    /// The key kept in `directory`: read when a valid one is there, else made (exclusively, so that processes that
    /// start together agree) where the directory can be made or is `owner`'s and writable by nobody else.
    static func keptKey(in directory: String, owner: uid_t, readableByAll: Bool) -> [UInt8]? {
        let path = directory + "/identity-salt"
        if isSafeDirectory(directory, owner: owner), let key = validKey(at: path, owner: owner) {
            if readableByAll && geteuid() == owner {
                // Made under a umask that hid it from users (root's 077): they would each keep a key of their own
                chmod(directory, 0o755)
                chmod(path, 0o644)
            }
            return key
        }
        guard geteuid() == owner, makeDirectory(directory, owner: owner, mode: readableByAll ? 0o755 : 0o700) else {
            return nil
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            // Ours but not a key (empty, cut short): replaced. Anything else there is not touched.
            guard info.st_uid == owner, info.st_mode & S_IFMT == S_IFREG else { return nil }
            unlink(path)
        }
        var generator = SystemRandomNumberGenerator()  // the kernel's getrandom
        let key = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, readableByAll ? 0o644 : 0o600)
        if descriptor >= 0 {
            fchmod(descriptor, readableByAll ? 0o644 : 0o600)  // whatever the umask
            _ = key.withUnsafeBytes { write(descriptor, $0.baseAddress, 32) }
            fsync(descriptor)
            close(descriptor)
        }
        // Whoever made it first, this process or another: the file's key.
        return validKey(at: path, owner: owner)
    }

    /// The 32 bytes at `path` when it is a regular file owned by `owner` that nobody else may write.
    private static func validKey(at path: String, owner: uid_t) -> [UInt8]? {
        var info = stat()
        guard lstat(path, &info) == 0, TrustedFile.refusal(owner: info.st_uid, mode: info.st_mode, kind: "key", owners: [owner], isDirectory: false) == nil,
            info.st_size == 32,
            let key = SmallFile.bytes(path, limit: 33), key.count == 32
        else { return nil }
        return key
    }

    /// Makes `directory` and its parents as needed; whether it ends a directory `owner` owns that nobody else writes.
    private static func makeDirectory(_ directory: String, owner: uid_t, mode: mode_t) -> Bool {
        _ = Directory.make(directory, mode: mode)
        return isSafeDirectory(directory, owner: owner)
    }

    /// Whether `directory` is a directory `owner` owns that nobody else may write (so nobody else can put a file in it).
    private static func isSafeDirectory(_ directory: String, owner: uid_t) -> Bool {
        var info = stat()
        return lstat(directory, &info) == 0
            && TrustedFile.refusal(
                owner: info.st_uid, mode: info.st_mode, kind: "directory", owners: [owner], isDirectory: true) == nil
    }

    private static func isOwned(_ path: String, by user: uid_t) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_uid == user
    }
}
