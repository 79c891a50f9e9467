public import Foundation

/// Records values delivered on other threads, for tests that wait for them.
public final class Recorder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Value] = []

    /// Makes an empty recorder.
    public init() {}

    /// Records a value; safe from any thread.
    public func append(_ value: Value) { lock.withLock { stored.append(value) } }

    /// The values so far.
    public var values: [Value] { lock.withLock { stored } }

    /// Waits until at least `count` values arrived or `timeout` passed; returns the values so far.
    @discardableResult
    public func waitFor(_ count: Int, timeout: TimeInterval = 10) -> [Value] {
        OwnThreadTrait.requireOffThePool("Recorder.waitFor")
        let deadline = Date().addingTimeInterval(timeout)
        while values.count < count && Date() < deadline { usleep(5_000) }
        return values
    }

    /// Waits until a value satisfies `matches` or `timeout` passed; returns the first such value, or `nil`.
    public func waitFor(timeout: TimeInterval = 10, where matches: (Value) -> Bool) -> Value? {
        OwnThreadTrait.requireOffThePool("Recorder.waitFor")
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let found = values.first(where: matches) { return found }
            usleep(5_000)
        }
        return values.first(where: matches)
    }

    /// Like ``waitFor(_:timeout:)``, but suspends instead of blocking: async tests must not hold a
    /// cooperative-pool thread (two on this machine) that the task they wait for needs.
    ///
    /// The bound counts 5 ms polls, not wall time: synchronous tests running beside this one can hold both pool
    /// threads for a minute and more under a sanitizer, and time this test spends unscheduled must not count.
    @discardableResult
    public func waitForAsync(_ count: Int, timeout: TimeInterval = 30) async -> [Value] {
        for _ in 0..<Int(timeout / 0.005) where values.count < count {
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return values
    }

    /// Waits `interval`, then returns the values, to check that nothing more arrives.
    public func valuesAfterQuiet(_ interval: TimeInterval = 0.7) -> [Value] {
        OwnThreadTrait.requireOffThePool("Recorder.valuesAfterQuiet")
        usleep(useconds_t(interval * 1_000_000))
        return values
    }
}

/// Suspends until `condition` holds or `timeout` passes, counted in 5 ms polls as
/// ``Recorder/waitForAsync(_:timeout:)`` counts; returns whether it held.
public func eventuallyAsync(timeout: TimeInterval = 30, _ condition: () -> Bool) async -> Bool {
    for _ in 0..<Int(timeout / 0.005) {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return condition()
}

/// Waits until `condition` holds or `timeout` passes; returns whether it held.
public func eventually(timeout: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
    OwnThreadTrait.requireOffThePool("eventually")
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}
