import Synchronization

/// Whether systemd-resolved runs, and, through a connection held open to it, when it stops.
///
/// systemd-resolved leaves `/run/systemd/resolve/resolv.conf` behind when it stops (its unit preserves the
/// directory), so the file alone would keep naming servers no query reaches. It runs while its varlink socket
/// accepts a connection. The subscription holds one such connection in its `poll`: systemd-resolved never writes to
/// a connection that asked nothing, so the connection turns readable only when the daemon closes it, by stopping or
/// crashing; its return is seen when it writes its files again.
final class SystemdResolvedWatch {
    /// systemd-resolved's varlink socket (`io.systemd.Resolve`), which any user may connect to.
    static let socketPath = "/run/systemd/resolve/io.systemd.Resolve"

    /// Whether systemd-resolved accepts a connection now: one connect, closed at once.
    static func isRunning() -> Bool {
        guard let descriptor = SystemCall.connectUnixStream(socketPath) else { return false }
        SystemCall.close(descriptor)
        return true
    }

    /// The held connection, or -1 without one (`poll` skips it). Read from any thread (a test counting a stopped
    /// subscription's descriptors); changed on the subscription's.
    var descriptor: Int32 { held.load(ordering: .relaxed) }
    private let held = Atomic<Int32>(-1)
    private var buffer = [UInt8](repeating: 0, count: 256)

    /// Holds a connection while `follows` (the resolver configuration names systemd-resolved's stub), none
    /// otherwise. Returns whether systemd-resolved runs, as far as the watch knows.
    @discardableResult
    func follow(_ follows: Bool) -> Bool {
        guard follows else {
            close()
            return false
        }
        if descriptor < 0 { held.store(SystemCall.connectUnixStream(Self.socketPath) ?? -1, ordering: .relaxed) }
        return descriptor >= 0
    }

    /// Reads what the connection holds, once `poll` said it is ready; returns whether systemd-resolved closed it
    /// (then the watch holds none).
    func drain() -> Bool {
        let descriptor = descriptor
        guard descriptor >= 0 else { return false }
        while true {
            let capacity = buffer.count
            switch try? SystemCall.runNonBlocking("read", { libcRead(descriptor, &buffer, capacity) }) {
            case .completed(let count)? where count > 0: continue  // nothing is asked, so nothing is expected
            case .wouldBlock?: return false
            default:  // end of file, or an error such as ECONNRESET: the daemon is gone
                close()
                return true
            }
        }
    }

    /// Closes the connection.
    func close() {
        SystemCall.close(held.exchange(-1, ordering: .relaxed))
    }

    deinit { close() }
}
