import NetworkReachabilityLinux
import NetworkReachabilityCore

/// Tells, through inotify, when the bus's socket is created or replaced: a bus that was not there, or went away,
/// may be there now. Its descriptor joins the reading thread's `poll`; nothing is polled on a timer.
final class BusSocketWatch {
    /// The inotify descriptor, readable after a change in the socket's directory.
    let descriptor: Int32
    /// The socket's name in its directory.
    private let name: [UInt8]
    private var buffer = [UInt8](repeating: 0, count: 4096)

    /// Watches the directory of the socket `address` names; `nil` for an abstract socket, a directory that does not
    /// exist, or no inotify: then a bus that goes away is not picked up again.
    init?(address: String) {
        guard let socket = try? DBusConnection.socketAddress(of: address), !socket.isAbstract else { return nil }
        let path = String(decoding: socket.bytes, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        name = Array(path[path.index(after: slash)...].utf8)
        descriptor = SystemCall.inotifyDescriptor()
        guard descriptor >= 0 else { return nil }
        // On failure `deinit` runs (every stored property is set) and closes the descriptor, once.
        guard SystemCall.addWatch(descriptor, path: directory, mask: SystemCall.inotifyChangeMask) != nil else {
            return nil
        }
    }

    deinit { SystemCall.close(descriptor) }

    /// Reads every pending event; returns whether one named the socket (others in the directory do not count).
    @discardableResult
    func drain() -> Bool {
        var named = false
        while let count = SystemCall.readAvailable(descriptor, into: &buffer) {
            // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of NUL-padded name.
            var offset = 0
            while offset + 16 <= count {
                let length = Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) })
                let end = min(offset + 16 + length, count)
                let eventName = buffer[(offset + 16)..<end].prefix { $0 != 0 }
                if eventName.elementsEqual(name) { named = true }
                offset = end
            }
        }
        return named
    }
}
