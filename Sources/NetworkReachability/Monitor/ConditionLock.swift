import Glibc

/// A pthread mutex and condition variable around one value: for a thread that must sleep until another
/// changes the value. Like ``Locked``, ThreadSanitizer sees it.
final class ConditionLock<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    // Guarded by `mutex`.
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        let results = (pthread_mutex_init(mutex, nil), pthread_cond_init(condition, nil))
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
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return body(&value)
    }

    /// Sleeps until `isReady` holds for the value or `seconds` pass, then runs `body` with exclusive access.
    ///
    /// - Returns: `body`'s result, and whether `isReady` held (false: timed out).
    func wait<Result>(
        until isReady: (Value) -> Bool, seconds: Int? = nil, then body: (inout Value, Bool) -> Result
    ) -> Result {
        var deadline = timespec()
        if let seconds {
            clock_gettime(CLOCK_REALTIME, &deadline)
            deadline.tv_sec += seconds
        }
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        while !isReady(value) {
            if seconds == nil {
                pthread_cond_wait(condition, mutex)
            } else if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT {
                break
            }
        }
        return body(&value, isReady(value))
    }
}
