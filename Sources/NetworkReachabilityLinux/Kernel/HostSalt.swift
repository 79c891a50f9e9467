import NetworkReachabilityCore
import NetworkReachabilityPOSIX
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The per-host key every ``NetworkIdentity`` is hashed under, so that an identity seen in a log or a metric says
/// nothing of the MAC address behind it, and the same network has the same identity on this host for every user,
/// process and boot.
///
/// Derived from the machine ID (`/etc/machine-id`, or D-Bus's copy), as systemd asks applications to do: an HMAC of
/// the application's own name under the ID, never the ID itself. A host without one (a bare container) gets a random
/// key, written once to `/var/lib/reach/identity-salt` by root, or to `$XDG_STATE_HOME/reach/identity-salt`
/// (`~/.local/state/…`) by a user, and kept there.
enum HostSalt {
    /// The key, read once per process.
    static let current: [UInt8] = {
        for path in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
            if let text = SmallFile.text(path, limit: 64), let id = machineID(text) {
                return SHA256.authenticationCode(Array("swift-network-reachability network identity".utf8), key: id)
            }
        }
        return keptRandomSalt()
    }()

    /// The 32 hexadecimal digits of a machine ID file, `nil` for an empty or malformed one (systemd writes
    /// "uninitialized" during first boot).
    static func machineID(_ text: String) -> [UInt8]? {
        let digits = text.trimmingSuffix(while: { $0 == "\n" })
        guard digits.utf8.count == 32, digits.allSatisfy(\.isHexDigit) else { return nil }
        return Array(digits.utf8)
    }

    /// A random key kept in a file of its own: created once (exclusively, so two first runs agree), then read.
    private static func keptRandomSalt() -> [UInt8] {
        let directory: String
        if geteuid() == 0 {
            directory = "/var/lib/reach"
        } else if let state = getenv("XDG_STATE_HOME").map({ String(cString: $0) }), state.hasPrefix("/") {
            directory = state + "/reach"
        } else {
            directory = (getenv("HOME").map { String(cString: $0) } ?? "/tmp") + "/.local/state/reach"
        }
        let path = directory + "/identity-salt"
        if let kept = SmallFile.bytes(path, limit: 33), kept.count == 32 { return kept }
        var generator = SystemRandomNumberGenerator()  // the kernel's getrandom
        let salt = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        var prefix = ""
        for component in directory.split(separator: "/") {
            prefix += "/" + component
            _ = mkdir(prefix, 0o700)
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            let written = salt.withUnsafeBytes { write(descriptor, $0.baseAddress, 32) }
            close(descriptor)
            if written == 32 { return salt }
        }
        // Another process made it first, or it cannot be kept: its key if it can be read, else this one for now.
        if let kept = SmallFile.bytes(path, limit: 33), kept.count == 32 { return kept }
        return salt
    }
}

extension String {
    fileprivate func trimmingSuffix(while isTrimmed: (Character) -> Bool) -> String {
        var text = self
        while let last = text.last, isTrimmed(last) { text.removeLast() }
        return text
    }
}
