import CNetlink
import NetworkReachability

/// Tells, through inotify, when the directory of the bus's socket changes: a bus that was not there, or went away,
/// may be there now. Its descriptor joins the reading thread's `poll`; nothing is polled on a timer.
final class BusSocketWatch {
    /// The inotify descriptor, readable after a change.
    let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 4096)

    /// Watches the directory of the socket `address` names; `nil` for an abstract socket, a directory that does not
    /// exist, or no inotify: then a bus that goes away is not picked up again.
    init?(address: String) {
        guard let socket = try? DBusConnection.socketAddress(of: address), !socket.isAbstract else { return nil }
        let path = String(decoding: socket.bytes, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        descriptor = cnl_inotify_open()
        guard descriptor >= 0 else { return nil }
        guard SystemCall.addWatch(descriptor, path: directory, mask: cnl_inotify_change_mask()) != nil else {
            SystemCall.close(descriptor)
            return nil
        }
    }

    deinit { SystemCall.close(descriptor) }

    /// Reads every pending event: the next change wakes the poll again.
    func drain() {
        while SystemCall.readAvailable(descriptor, into: &buffer) != nil {}
    }
}
