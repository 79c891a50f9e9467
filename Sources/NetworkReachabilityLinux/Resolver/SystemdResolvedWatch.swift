import NetworkReachabilityPOSIX
import Synchronization

/// Whether systemd-resolved runs, and, through a connection held open to it, when it stops.
///
/// systemd-resolved leaves `/run/systemd/resolve/resolv.conf` behind when it stops (its unit preserves the
/// directory), so the file alone would keep naming servers no query reaches. It runs while its varlink socket
/// accepts a connection. The subscription holds one such connection in its `poll`: systemd-resolved never writes to
/// a connection that asked nothing, so the connection turns readable only when the daemon closes it, by stopping or
/// crashing; its return is seen when it makes its socket anew or writes its files again.
///
/// systemd-resolved binds its socket (the change inotify reports) a moment before it listens on it, so a connection
/// refused while the socket exists is tried again 10, 20, 40 … 1,280 ms later (2.55 s in all), then not until the
/// next change: a socket a killed daemon left behind costs eight connects.
final class SystemdResolvedWatch {
    /// The first wait before a refused socket is tried again; each later one is twice the one before.
    static let firstRetryDelay = 10
    /// The longest wait; after it the socket is left until the next change.
    static let lastRetryDelay = 1_280
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
    /// When to try a refused socket again (monotonic milliseconds), if at all.
    private(set) var retryDeadline: Int?
    /// The wait before the next try after a refusal; 0 until a try since the last change was refused.
    private var retryDelay = 0

    /// Holds a connection while `follows` (the resolver configuration names systemd-resolved's stub), none
    /// otherwise. Returns whether systemd-resolved runs, as far as the watch knows.
    @discardableResult
    func follow(_ follows: Bool) -> Bool {
        guard follows else {
            close()
            return false
        }
        if descriptor < 0 { held.store(SystemCall.connectUnixStream(Self.socketPath) ?? -1, ordering: .relaxed) }
        retryDeadline = nil
        if descriptor >= 0 || !SystemCall.pathExists(Self.socketPath) || retryDelay > Self.lastRetryDelay {
            retryDelay = 0
        } else {
            retryDelay = max(retryDelay, Self.firstRetryDelay)
            retryDeadline = MonotonicClock.milliseconds() + retryDelay
            retryDelay *= 2
        }
        return descriptor >= 0
    }

    /// Says the resolver's files changed: a refusal after this starts the tries anew.
    func filesChanged() {
        retryDelay = 0
        retryDeadline = nil
    }

    /// Whether the time to try a refused socket again has come (then the caller reads the configuration again,
    /// which follows); the deadline is consumed.
    func retryIsDue(at now: Int) -> Bool {
        guard let deadline = retryDeadline, deadline <= now else { return false }
        retryDeadline = nil
        return true
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
