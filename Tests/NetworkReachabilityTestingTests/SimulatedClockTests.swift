import NetworkReachabilityKit
import NetworkReachabilityTesting
import Testing
import TestSupport

/// Timeouts and delays on a simulated network are measured on its clock: a ``SimulatedClock`` moved by hand makes a
/// 30-second timeout or a minute of retries pass at once, to the nanosecond.
struct SimulatedClockTests {
    /// An offline host: eth0 with an address and no default route.
    private func offline(_ clock: SimulatedClock) throws -> SimulatedNetwork {
        let network = SimulatedNetwork(clock: clock)
        try network.addInterface("eth0")
        try network.addAddress("192.0.2.2/24", to: "eth0")
        return network
    }

    /// Yields until `count` sleeps wait for the clock, so that an advance reaches them.
    private func untilSleeping(_ clock: SimulatedClock, _ count: Int = 1) async {
        while clock.sleepers < count { await Task.yield() }
    }

    @Test(.timeLimit(.minutes(1)))
    func aWaitsTimeoutPassesWhenTheClockIsAdvancedToItAndNotBefore() async throws {
        let clock = SimulatedClock()
        let network = try offline(clock)
        let reachability = try NetworkReachability(network: network)
        let wait = Task { try await reachability.waitUntilReachable(timeout: .seconds(30)) }
        await untilSleeping(clock)
        await clock.advance(by: .seconds(30) - .nanoseconds(1))
        #expect(clock.sleepers == 1)  // still waiting, a nanosecond short
        await clock.advance(by: .nanoseconds(1))
        await #expect(throws: ReachabilityError.timedOut(.seconds(30))) { try await wait.value }
        #expect(clock.sleepers == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func aWaitThatIsSatisfiedCancelsItsTimer() async throws {
        let clock = SimulatedClock()
        let network = try offline(clock)
        let reachability = try NetworkReachability(network: network)
        let wait = Task { try await reachability.waitUntilReachable(timeout: .seconds(30)) }
        await untilSleeping(clock)
        try network.addDefaultRoute(via: "192.0.2.1")
        #expect(try await wait.value == .reachable(.ethernetOrWiFi))
        while clock.sleepers > 0 { await Task.yield() }  // the timer's sleep was cancelled, not left behind
    }

    @Test(.timeLimit(.minutes(1)))
    func aFailingJobsRetriesWaitTheirDelaysOnTheClock() async throws {
        let clock = SimulatedClock()
        let network = try offline(clock)
        try network.addDefaultRoute(via: "192.0.2.1")
        let policy = try RetryPolicy(maximumAttempts: 3, initialDelay: .seconds(10), multiplier: 3, maximumDelay: .seconds(60))
        let queue = try ReachabilityWorkQueue(reachability: NetworkReachability(network: network), retryPolicy: policy)
        let attempts = Recorder<Int>()
        struct Refused: Error {}
        let job = queue.submit {
            attempts.append(attempts.values.count + 1)
            throw Refused()
        }
        await untilSleeping(clock)  // after the first attempt: 10 s
        #expect(attempts.values == [1])
        await clock.advance(by: .seconds(10))
        await untilSleeping(clock)  // after the second: 30 s
        #expect(attempts.values == [1, 2])
        await clock.advance(by: .seconds(29))
        #expect(attempts.values == [1, 2])
        await clock.advance(by: .seconds(1))
        #expect(await job.outcome.attempts == 3)
        #expect(attempts.values == [1, 2, 3])
        queue.close()
    }
}
