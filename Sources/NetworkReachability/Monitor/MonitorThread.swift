import CNetlink
import Glibc

/// A dedicated thread for the blocking kernel read: it must not occupy a Dispatch or Swift-concurrency worker.
final class MonitorThread: @unchecked Sendable {
    private var thread = pthread_t()

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread.
    init(_ body: @escaping @Sendable () -> Void) throws(ReachabilityError) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
                cnl_name_current_thread("reachability")
                body.run()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw .systemCallFailed(call: "pthread_create", errno: result)
        }
    }

    /// Whether the caller runs on this thread.
    var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }

    /// Waits for the thread to end; from the thread itself, lets it end on its own instead.
    func join() {
        if isCurrent {
            detach()
        } else {
            pthread_join(thread, nil)
        }
    }

    /// Lets the thread end on its own: nobody joins it.
    func detach() { pthread_detach(thread) }
}
