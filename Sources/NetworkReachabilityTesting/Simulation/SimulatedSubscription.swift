import NetworkReachabilityCore
import NetworkReachabilityPOSIX

/// The monitor's subscription to a simulated network: a change arrives when a test makes one, and the test
/// can wait until the monitor has evaluated it and delivered what it changed (``settle(seconds:)``).
final class SimulatedSubscription: RoutingSubscription {
    private struct State {
        var changed = false
        var woken = false
        /// The monitor is blocked in ``waitForChanges()``: every earlier pass has delivered.
        var isWaiting = false
        var isClosed = false
        var monitorThread: ThreadIdentity?
    }

    private let state = ConditionLock(State())
    private let evaluate: @Sendable ([DueTarget]) -> [TargetEvaluation]

    /// - Parameter evaluate: evaluates a pass's targets, in order.
    init(evaluate: @escaping @Sendable ([DueTarget]) -> [TargetEvaluation]) {
        self.evaluate = evaluate
    }

    /// The network changed: the monitor evaluates every target again.
    func post() {
        state.withLock { $0.changed = true }
    }

    /// Waits until the monitor has nothing left to evaluate or deliver, or `seconds` pass; at once on the
    /// monitor's own thread (a sink that changes the network) and after a close.
    ///
    /// - Returns: whether everything was delivered (false: timed out).
    func settle(seconds: Int) -> Bool {
        let isMonitorThread = state.withLock { state in
            state.monitorThread == .current
        }
        guard !isMonitorThread else { return true }
        return state.wait(
            until: { $0.isClosed || ($0.isWaiting && !$0.changed && !$0.woken) },
            deadline: MonotonicClock.milliseconds() + seconds * 1000,
            then: { _, settled in settled })
    }

    // MARK: - RoutingSubscription

    func waitForChanges() -> RoutingChange {
        state.withLock { state in
            state.isWaiting = true
            state.monitorThread = .current
        }
        return state.wait(until: { $0.changed || $0.woken || $0.isClosed }) { state, _ in
            defer {
                state.isWaiting = false
                state.changed = false
                state.woken = false
            }
            return state.changed ? .changed(.everything) : .woken
        }
    }

    func wake() {
        state.withLock { $0.woken = true }
    }

    func beginPass(after changes: NetworkChanges) -> any RoutingPass {
        Pass(evaluate: evaluate)
    }

    /// A simulated pass learns nothing once for its parts: every target is evaluated on its own.
    private final class Pass: RoutingPass {
        private let evaluate: @Sendable ([DueTarget]) -> [TargetEvaluation]

        init(evaluate: @escaping @Sendable ([DueTarget]) -> [TargetEvaluation]) { self.evaluate = evaluate }

        func evaluate(_ targets: [DueTarget]) -> [TargetEvaluation] { evaluate(targets) }
    }

    func close() {
        state.withLock { $0.isClosed = true }
    }

    var statistics: MonitorStatistics { MonitorStatistics() }

    var descriptors: [Int32] { [] }
}
