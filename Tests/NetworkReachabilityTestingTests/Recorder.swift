import Glibc

/// Collects values delivered on other threads; the simulated network delivers before a change returns, so
/// these tests read it without waiting.
final class Recorder<Value: Sendable>: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var stored: [Value] = []

    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }

    func append(_ value: Value) {
        pthread_mutex_lock(&mutex)
        stored.append(value)
        pthread_mutex_unlock(&mutex)
    }

    var values: [Value] {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return stored
    }

    /// Suspends until at least `count` values arrived or `seconds` of 2 ms polls passed; returns the values so
    /// far. A bound for tests whose values come from tasks, so a bug fails the test instead of hanging it. Polls,
    /// not wall time: synchronous tests running beside these can hold both cooperative-pool threads for long.
    func waitFor(_ count: Int, seconds: Int = 30) async -> [Value] {
        for _ in 0..<(seconds * 500) where values.count < count {
            try? await Task.sleep(for: .milliseconds(2))
        }
        return values
    }
}
