#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A thread of our own, for the blocking kernel read and for background work: it must not occupy a Dispatch or
/// Swift-concurrency worker, and using Dispatch at all on Linux starts its pool's monitor, a one-second timer that
/// wakes the process for as long as it lives.
package final class DedicatedThread: @unchecked Sendable {
    private var thread = pthread_t()

    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(_ name: String, _ run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Starts `body` on a new thread called `name` (a name over 15 bytes is not set).
    package init(name: String = "reachability", _ body: @escaping @Sendable () -> Void) throws(SystemFailure) {
        let context = Unmanaged.passRetained(Body(name, body)).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
                _ = DedicatedThread.setName?(pthread_self(), body.name)
                body.run()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw SystemFailure(call: "pthread_create", errno: result)
        }
    }

    /// Whether the caller runs on this thread.
    var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }

    /// Waits for the thread to end; from the thread itself, lets it end on its own instead.
    package func join() {
        if isCurrent {
            detach()
        } else {
            pthread_join(thread, nil)
        }
    }

    /// Lets the thread end on its own: nobody joins it.
    package func detach() { pthread_detach(thread) }

    /// `pthread_setname_np` where the C library has it (it fails for names over 15 bytes, leaving the name as it was).
    private static let setName: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32)? = CLibrary.symbol(
        "pthread_setname_np")
}

/// Which thread something runs on, to compare with the thread a call comes from.
package struct ThreadIdentity: Sendable, Equatable {
    private let thread: pthread_t

    /// The calling thread.
    package static var current: ThreadIdentity { ThreadIdentity(thread: pthread_self()) }

    package static func == (left: ThreadIdentity, right: ThreadIdentity) -> Bool {
        pthread_equal(left.thread, right.thread) != 0
    }
}
