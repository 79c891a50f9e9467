import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// `waitUntilReachable` and `waitForStatus` against the real kernel, in a test namespace.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct WaitingInNamespaceTests {
    private func internet(in network: TestNetwork) throws -> (NetworkReachability, ReachabilityMonitor) {
        let monitor = ReachabilityMonitor(backend: LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name)))
        return (try NetworkReachability(target: .internet, monitor: monitor, logger: NetworkReachability.silentLogger), monitor)
    }

    @Test func aReachableTargetReturnsAtOnceAndStopsListening() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let (reachability, monitor) = try internet(in: network)
        #expect(try await reachability.waitUntilReachable(timeout: .seconds(10)) == .reachable(.ethernetOrWiFi))
        #expect(await eventuallyAsync { !monitor.isSubscribed })
    }

    @Test func waitingOfflineReturnsWhenTheDefaultRouteComesBackAndNotBefore() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "del", "default")
        let (reachability, monitor) = try internet(in: network)
        let events = Recorder<String>()
        let wait = Task {
            let status = try await reachability.waitUntilReachable(timeout: .seconds(30))
            events.append("returned \(status)")
        }
        #expect(await eventuallyAsync { monitor.statistics.targetEvaluations >= 1 })
        try await Task.sleep(for: .milliseconds(300))
        events.append("adding the route")
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        try await wait.value
        #expect(events.values == ["adding the route", "returned reachable(ethernetOrWiFi)"])
        #expect(await eventuallyAsync { !monitor.isSubscribed })
    }

    @Test func aConditionCanWaitForTheNetworkToGoAway() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let (reachability, monitor) = try internet(in: network)
        let wait = Task { try await reachability.waitForStatus(timeout: .seconds(30)) { !$0.isReachable } }
        #expect(await eventuallyAsync { monitor.statistics.targetEvaluations >= 1 })
        try network.ip("route", "del", "default")
        #expect(try await wait.value == .notReachable)
    }

    @Test func theTimeoutEndsTheWaitWithATypedError() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "del", "default")
        let (reachability, monitor) = try internet(in: network)
        await #expect(throws: ReachabilityError.timedOut(.milliseconds(200))) {
            try await reachability.waitUntilReachable(timeout: .milliseconds(200))
        }
        #expect(await eventuallyAsync { !monitor.isSubscribed })
    }

    @Test func cancellingTheTaskEndsTheWaitAndItsListening() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "del", "default")
        let (reachability, monitor) = try internet(in: network)
        let wait = Task { try await reachability.waitUntilReachable() }
        #expect(await eventuallyAsync { monitor.statistics.targetEvaluations >= 1 })
        wait.cancel()
        await #expect(throws: CancellationError.self) { try await wait.value }
        #expect(await eventuallyAsync { !monitor.isSubscribed })
    }

    @Test func aNegativeTimeoutIsRefusedBeforeListening() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let (reachability, monitor) = try internet(in: network)
        await #expect(throws: ReachabilityError.invalidTimeout(.seconds(-1))) {
            try await reachability.waitUntilReachable(timeout: .seconds(-1))
        }
        #expect(monitor.statistics.targetEvaluations == 0)
    }

    @Test func aDeletedNamespaceEndsTheWaitWithItsError() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "del", "default")
        let (reachability, monitor) = try internet(in: network)
        let wait = Task { try await reachability.waitUntilReachable(timeout: .seconds(30)) }
        #expect(await eventuallyAsync { monitor.statistics.targetEvaluations >= 1 })
        network.remove()
        await #expect(throws: ReachabilityError.networkNamespaceDeleted("/run/netns/\(network.name)")) {
            try await wait.value
        }
    }
}
