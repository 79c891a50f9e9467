import Logging
import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// `ReachabilityWorkQueue` against the real kernel: jobs wait for the default route, are interrupted when it
/// goes, are retried when they fail, and end when the queue does.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct WorkQueueInNamespaceTests {
    private struct JobFailure: Error, Equatable {}

    private func queue(
        in network: TestNetwork, retryPolicy: RetryPolicy = .standard,
        logger: Logger = NetworkReachability.silentLogger
    ) throws -> (ReachabilityWorkQueue, ReachabilityMonitor) {
        let monitor = ReachabilityMonitor(backend: LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name)))
        let reachability = try NetworkReachability(target: .internet, monitor: monitor, logger: NetworkReachability.silentLogger)
        return (try ReachabilityWorkQueue(reachability: reachability, retryPolicy: retryPolicy, logger: logger), monitor)
    }

    @Test func jobsSubmittedOfflineRunInOrderOnceTheDefaultRouteReturns() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "del", "default")
        let (queue, monitor) = try queue(in: network)
        let events = Recorder<String>()
        let jobs = (1...3).map { number in queue.submit { events.append("job \(number)") } }
        #expect(await eventuallyAsync { monitor.statistics.targetEvaluations >= 1 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(queue.unfinishedJobCount == 3)
        events.append("adding the route")
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        for job in jobs { #expect(await job.outcome.isSuccess) }
        #expect(events.values == ["adding the route", "job 1", "job 2", "job 3"])
        #expect(jobs.map { $0.currentOutcome?.attempts } == [1, 1, 1])
        #expect(queue.unfinishedJobCount == 0)
    }

    @Test func anAttemptInFlightWhenTheRouteVanishesIsCancelledAndRunAgainWhenItReturns() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        // One attempt only: an interrupted attempt must not use it up.
        let (queue, _) = try queue(in: network, retryPolicy: try RetryPolicy(maximumAttempts: 1))
        let events = Recorder<String>()
        let attempts = Recorder<Int>()
        let job = queue.submit {
            attempts.append(attempts.values.count + 1)
            events.append("attempt \(attempts.values.count) started")
            if attempts.values.count == 1 {
                try await Task.sleep(for: .seconds(60))  // a request that hangs until the network goes
            }
        }
        #expect(await events.waitForAsync(1) == ["attempt 1 started"])
        events.append("deleting the route")
        try network.ip("route", "del", "default")
        try await Task.sleep(for: .milliseconds(500))
        events.append("adding the route")
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        #expect(await job.outcome.description == "succeeded after 2 attempts")
        #expect(events.values == ["attempt 1 started", "deleting the route", "adding the route", "attempt 2 started"])
    }

    @Test func aFailingJobIsRetriedWithGrowingDelaysThenFailsAndTheNextJobRuns() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let policy = try RetryPolicy(
            maximumAttempts: 3, initialDelay: .milliseconds(100), multiplier: 3, maximumDelay: .seconds(1))
        let messages = Recorder<String>()
        let (queue, _) = try queue(
            in: network, retryPolicy: policy, logger: Logger(label: "test") { _ in RecordingLogHandler(messages) })
        let clock = ContinuousClock()
        let starts = Recorder<ContinuousClock.Instant>()
        let failing = queue.submit {
            starts.append(clock.now)
            throw JobFailure()
        }
        let next = queue.submit {}
        let outcome = await failing.outcome
        guard case .failed(let error, let attempts) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(error as? JobFailure == JobFailure())
        #expect(attempts == 3)
        let times = starts.values
        #expect(times.count == 3)
        // Lower bounds only: the queue never retries sooner than the policy says.
        #expect(times[0].duration(to: times[1]) >= .milliseconds(100))
        #expect(times[1].duration(to: times[2]) >= .milliseconds(300))
        #expect(await next.outcome.description == "succeeded after 1 attempt")
        // The caller's logger heard each retry and the end
        #expect(messages.values.filter { $0.hasPrefix("job \(failing.id): attempt") && $0.contains("again in") }.count == 2)
        #expect(messages.values.contains { $0.hasPrefix("job \(failing.id) failed after 3 attempts") })
    }

    @Test func closingCancelsWaitingJobsAndStopsListening() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "del", "default")
        let (queue, monitor) = try queue(in: network)
        let ran = Recorder<Int>()
        let jobs = (1...2).map { number in queue.submit { ran.append(number) } }
        #expect(await eventuallyAsync { monitor.statistics.targetEvaluations >= 1 })
        queue.close()
        for job in jobs { #expect(await job.outcome.description == "cancelled after 0 attempts") }
        #expect(queue.submit { ran.append(3) }.currentOutcome?.description == "cancelled after 0 attempts")
        #expect(await eventuallyAsync { !monitor.isSubscribed })
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        try await Task.sleep(for: .milliseconds(300))
        #expect(ran.values.isEmpty)
    }

    @Test func releasingTheQueueCancelsTheAttemptInFlight() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        var queue: ReachabilityWorkQueue?
        let monitor: ReachabilityMonitor
        (queue, monitor) = try self.queue(in: network)
        let started = Recorder<Bool>()
        let job = try #require(queue).submit {
            started.append(true)
            try await Task.sleep(for: .seconds(60))
        }
        #expect(await started.waitForAsync(1).count == 1)
        queue = nil
        #expect(await job.outcome.description == "cancelled after 1 attempt")
        #expect(await eventuallyAsync { !monitor.isSubscribed })
    }

    @Test func aDeletedNamespaceFailsTheJobsWithItsError() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "del", "default")
        let (queue, monitor) = try queue(in: network)
        let job = queue.submit {}
        #expect(await eventuallyAsync { monitor.statistics.targetEvaluations >= 1 })
        network.remove()
        let outcome = await job.outcome
        guard case .failed(let error, attempts: 0) = outcome else {
            Issue.record("expected a failure before any attempt, got \(outcome)")
            return
        }
        #expect(error as? ReachabilityError == .networkNamespaceDeleted("/run/netns/\(network.name)"))
    }
}
