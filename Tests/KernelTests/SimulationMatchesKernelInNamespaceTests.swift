import NetworkReachabilityTesting
import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// The simulated network must answer as the kernel does, or users' tests would pass against a network that
/// does not exist: the same topology in a namespace and in a `SimulatedNetwork`, through the same changes,
/// gives the same flags, status and path for every target.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct SimulationMatchesKernelInNamespaceTests {
    private static let targets = [
        "internet", TestNetwork.gatewayIPv4, TestNetwork.gatewayIPv6, TestNetwork.hostIPv4, TestNetwork.hostIPv6,
        "192.0.2.77", "2001:db8:0:1::77", "10.1.2.3", "10.9.1.1", "2001:db8:5::5", "127.0.0.1", "::1",
    ]

    /// What both must agree on, in one comparable line per target.
    private static func summary(_ snapshot: ReachabilitySnapshot) -> String {
        let path = snapshot.path
        return [
            snapshot.status.description, snapshot.flags.flagsString, path.interface?.name ?? "-",
            path.interface.map { "\($0.type)" } ?? "-", path.gateway?.description ?? "-",
            path.sourceAddress?.description ?? "-", "v4=\(path.supportsIPv4)", "v6=\(path.supportsIPv6)",
        ].joined(separator: " ")
    }

    /// Each target's summary; a flags read (which describes no path) must give the snapshot's flags.
    private func summaries(_ make: (ReachabilityTarget) throws -> NetworkReachability) throws -> [String] {
        try Self.targets.map { text in
            let target: ReachabilityTarget = text == "internet" ? .internet : .address(try IPAddress(text))
            let reachability = try make(target)
            let snapshot = try reachability.currentSnapshot()
            #expect(reachability.flags == snapshot.flags, "\(text): the flags read")
            return "\(text): " + Self.summary(snapshot)
        }
    }

    @Test func theSameNetworkThroughTheSameChangesGivesTheSameAnswers() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        let monitor = ReachabilityMonitor(backend: LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name)))
        let kernel = { (target: ReachabilityTarget) in
            try NetworkReachability(target: target, monitor: monitor, logger: NetworkReachability.silentLogger)
        }
        let simulated = SimulatedNetwork()
        try simulated.addInterface("rn0")
        try simulated.addAddress("\(TestNetwork.hostIPv4)/24", to: "rn0")
        try simulated.addAddress("\(TestNetwork.hostIPv6)/64", to: "rn0")
        try simulated.addDefaultRoute(via: TestNetwork.gatewayIPv4)
        try simulated.addDefaultRoute(via: TestNetwork.gatewayIPv6)
        let simulation = { (target: ReachabilityTarget) in try NetworkReachability(target: target, network: simulated) }

        func expectSame(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let (fromKernel, fromSimulation) = (try summaries(kernel), try summaries(simulation))
            for (real, simulated) in zip(fromKernel, fromSimulation) {
                #expect(real == simulated, "after \(step)", sourceLocation: sourceLocation)
            }
        }

        try expectSame("building the network")

        try network.ip("route", "add", "unreachable", "10.9.0.0/16")
        try simulated.addRoute(rejecting: "10.9.0.0/16", as: .unreachable)
        try network.ip("route", "add", "10.0.0.0/8", "via", TestNetwork.gatewayIPv4, "metric", "50")
        try simulated.addRoute(to: "10.0.0.0/8", via: TestNetwork.gatewayIPv4, metric: 50)
        try expectSame("adding an unreachable /16 and a /8")

        try network.gatewayIP("link", "set", "rngw", "down")
        try network.waitForOperationalState("DOWN", of: "rn0")  // a veth whose peer is down: NO-CARRIER, operstate down
        try simulated.setCarrier(false, on: "rn0")
        try expectSame("losing carrier")

        try network.gatewayIP("link", "set", "rngw", "up")
        try network.waitForOperationalState("UP", of: "rn0")
        try simulated.setCarrier(true, on: "rn0")
        try expectSame("regaining carrier")

        try network.ip("route", "del", "default")
        try network.ip("-6", "route", "del", "default")
        simulated.removeDefaultRoutes()
        try expectSame("removing the default routes")

        try network.ip("link", "set", "rn0", "down")
        try simulated.setInterface("rn0", up: false)
        try expectSame("taking the link down")

        try network.ip("link", "set", "rn0", "up")
        try network.waitForOperationalState("UP", of: "rn0")
        try simulated.setInterface("rn0", up: true)
        try expectSame("bringing the link up")
    }
}
