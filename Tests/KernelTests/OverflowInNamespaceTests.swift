import Dispatch
import Foundation
import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// Floods of kernel messages: the socket overflows, the state is re-read, and the answer is still the kernel's.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct OverflowInNamespaceTests {
    private let queue = DispatchQueue(label: "overflow-listener")

    @Test func aFloodOf100000RouteChangesOverflowsATinyBufferAndTheFinalStatusIsTheKernels() throws {
        // Given a listener whose subscription has the smallest receive buffer the kernel allows
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let monitor = ReachabilityMonitor(
            backend: LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name), receiveBufferSize: 1))
        let reachability = try NetworkReachability(target: .internet, monitor: monitor, logger: NetworkReachability.silentLogger)
        let statuses = Recorder<NetworkReachabilityStatus>()
        reachability.startListening(onQueue: queue) { statuses.append($0) }
        #expect(statuses.waitFor(1) == [.reachable(.ethernetOrWiFi)])

        // When 100,000 route changes arrive, the last of which removes the default route
        try network.floodRoutes(100_000, finally: "route del default")

        // Then the socket overflowed, the state was re-read, and the final status is what the kernel says
        #expect(eventually { monitor.statistics.resynchronizations >= 1 })
        #expect(try network.run(["ip", "route", "get", "8.8.8.8"]).status != 0)  // the kernel: no route
        #expect(eventually(timeout: 20) { statuses.values.last == .notReachable })
        #expect(reachability.status == .notReachable)

        // And every later change is still seen
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        #expect(eventually { statuses.values.last == .reachable(.ethernetOrWiFi) })
        #expect(monitor.statistics.malformedMessages == 0)
        reachability.stopListening()
        #expect(!monitor.isSubscribed)
    }
}
