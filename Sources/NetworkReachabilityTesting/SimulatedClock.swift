import NetworkReachabilityPOSIX

/// A clock that moves only when a test says: give it to a ``SimulatedNetwork``, and the timeouts and delays of
/// everything on that network (waits, the work queue's retries, the validator's) pass when you ``advance(by:)`` it,
/// not in real time. A test of a 30-second timeout takes no 30 seconds.
///
/// ```swift
/// let clock = SimulatedClock()
/// let network = SimulatedNetwork(clock: clock)
/// async let waited = NetworkReachability(network: network).waitUntilReachable(timeout: .seconds(30))
/// await clock.advance(by: .seconds(30))            // the wait throws timedOut now
/// ```
public final class SimulatedClock: Clock, Sendable {
    /// A point on the clock: how far it was advanced.
    public struct Instant: InstantProtocol, Sendable {
        /// The time since the clock was made.
        public let offset: Duration

        /// The instant `offset` after the clock was made.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` after this one.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Whether `left` comes before `right`.
        public static func < (left: Instant, right: Instant) -> Bool { left.offset < right.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
    }

    // Guarded by its lock; never held while resuming a sleeper.
    private let state = Locked(State())

    /// A clock at zero.
    public init() {}

    /// The instant the clock was last advanced to.
    public var now: Instant { state.withLock { $0.now } }

    /// Nothing shorter than a nanosecond is told apart.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// How many sleeps wait for the clock now: a test can advance once they have begun.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock is advanced to `deadline`, or throws `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let due: Bool = state.withLock { state in
                    guard deadline > state.now, !Task.isCancelled else { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if due {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock `duration` on and wakes every sleep whose deadline that reaches, earliest first; then lets
    /// the woken tasks run before it returns.
    public func advance(by duration: Duration) async {
        let woken: [Sleeper] = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in woken { sleeper.continuation.resume() }
        for _ in 0..<16 { await Task.yield() }
    }
}
