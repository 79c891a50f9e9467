#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A pthread mutex and condition variable around one value: for a thread that must sleep until another
/// changes the value. Like ``Locked``, ThreadSanitizer sees it.
package final class ConditionLock<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    // Guarded by `mutex`.
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        // Deadlines are on the monotonic clock, which a change of the wall clock cannot move.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        let results = (pthread_mutex_init(mutex, nil), pthread_cond_init(condition, &attributes))
        pthread_condattr_destroy(&attributes)
        precondition(results == (0, 0), "pthread_mutex_init or pthread_cond_init failed: \(results)")
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deinitialize(count: 1)
        condition.deallocate()
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value, then wakes every waiter to look at it again.
    package func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return body(&value)
    }

    /// Sleeps until `isReady` holds for the value or `deadline` passes, then runs `body` with exclusive access.
    ///
    /// - Parameter deadline: milliseconds on `CLOCK_MONOTONIC` (``MonotonicClock/milliseconds()``); none
    ///   waits without end.
    /// - Returns: `body`'s result, given whether `isReady` held (false: timed out).
    package func wait<Result>(
        until isReady: (Value) -> Bool, deadline milliseconds: Int? = nil, then body: (inout Value, Bool) -> Result
    ) -> Result {
        let deadline = milliseconds.map { timespec(tv_sec: $0 / 1000, tv_nsec: $0 % 1000 * 1_000_000) }
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        while !isReady(value) {
            if var deadline {
                if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { break }
            } else {
                pthread_cond_wait(condition, mutex)
            }
        }
        return body(&value, isReady(value))
    }
}

/// Shared between threads only around a value that may cross them, as ``Locked`` is.
extension ConditionLock: @unchecked Sendable where Value: Sendable {}
