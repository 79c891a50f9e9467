#if canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#endif

/// A pthread-mutex lock around one value, with reference semantics: copies share the value and the lock.
///
/// `Synchronization.Mutex` is futex-based on Linux and invisible to ThreadSanitizer, which then reports
/// races that are not there; a pthread mutex keeps `swift test --sanitize=thread` meaningful. The value and
/// the mutex live in one allocation (as in swift-nio's `NIOLockedValueBox`): every listening object holds a
/// lock, and a separately allocated mutex cost each one a second allocation.
///
/// Public, with an inlinable `withLock`, in a module that is no product: the compiler specializes and inlines a
/// `package` type's members in no other module, so every lock of the core and the backend was a call through the
/// value's metadata. Inlined, a routed flags read takes about 90 ns (2 %) less (`scripts/bench-reads`).
///
/// Keep a function in a struct, not as the value itself: where a `withLock` is not specialized, its body's `inout`
/// parameter is converted and written back, which wraps a stored function in two more thunks at every access.
public struct Locked<Value> {
    @usableFromInline
    final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }

    @usableFromInline
    let storage: Storage

    /// Holds `value` behind a new mutex.
    public init(_ value: Value) {
        storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in value }, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            let result = pthread_mutex_init(mutex, nil)
            precondition(result == 0, "pthread_mutex_init failed: \(result)")
        }
    }

    /// Runs `body` with exclusive access to the value. Never call out to user code inside.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try storage.withUnsafeMutablePointers { (value, mutex) throws(Failure) -> Result in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

/// A lock is shared between threads only around a value that may cross them: what `withLock` hands out (a copy, or
/// a reference) must be safe where the caller takes it.
extension Locked: @unchecked Sendable where Value: Sendable {}
