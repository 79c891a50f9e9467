#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A pthread-mutex lock around one value, with reference semantics: copies share the value and the lock.
///
/// `Synchronization.Mutex` is futex-based on Linux and invisible to ThreadSanitizer, which then reports
/// races that are not there; a pthread mutex keeps `swift test --sanitize=thread` meaningful. The value and
/// the mutex live in one allocation (as in swift-nio's `NIOLockedValueBox`): every listening object holds a
/// lock, and a separately allocated mutex cost each one a second allocation.
package struct Locked<Value>: @unchecked Sendable {
    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }

    private let storage: Storage

    package init(_ value: Value) {
        storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in value }, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            let result = pthread_mutex_init(mutex, nil)
            precondition(result == 0, "pthread_mutex_init failed: \(result)")
        }
    }

    /// Runs `body` with exclusive access to the value. Never call out to user code inside.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try storage.withUnsafeMutablePointers { (value, mutex) throws(Failure) -> Result in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}
