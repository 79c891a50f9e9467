import Dispatch
import Foundation
import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// Required and prohibited interface types against the real kernel: two uplinks, one Wi-Fi-typed and one
/// cellular-typed (by a fixture sysfs tree), the cellular one preferred by its metric.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct InterfaceRestrictionInNamespaceTests {
    /// The namespace with its second uplink, the fixture tree, and a monitor that classifies through it.
    private struct TwoUplinks {
        let network: TestNetwork
        let sysfs: URL
        let monitor: ReachabilityMonitor

        init() throws {
            network = try TestNetwork(ipv4: true, ipv6: false)
            sysfs = FileManager.default.temporaryDirectory.appendingPathComponent("nrt-sysfs-\(network.name)")
            do {
                try FileManager.default.createDirectory(
                    at: sysfs.appendingPathComponent("class/net/rn0/wireless"), withIntermediateDirectories: true)
                try FileManager.default.createDirectory(
                    at: sysfs.appendingPathComponent("class/net/rn1"), withIntermediateDirectories: true)
                try "DEVTYPE=wwan\n".write(
                    to: sysfs.appendingPathComponent("class/net/rn1/uevent"), atomically: true, encoding: .utf8)
                try network.addSecondUplink()
                try network.ip("route", "del", "default")
                try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4, "metric", "200")
                try network.ip("route", "add", "default", "via", TestNetwork.secondGatewayIPv4, "metric", "100")
            } catch {
                network.remove()
                try? FileManager.default.removeItem(at: sysfs)
                throw error
            }
            monitor = ReachabilityMonitor(
                backend: LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name), sysfsRoot: sysfs.path))
        }

        func reachability(_ target: ReachabilityTarget) throws -> NetworkReachability {
            try NetworkReachability(target: target, monitor: monitor, logger: NetworkReachability.silentLogger)
        }

        func remove() {
            network.remove()
            try? FileManager.default.removeItem(at: sysfs)
        }
    }

    @Test func aProhibitedOrNotRequiredTypeIsPassedOverForTheRouteOutOfAnAllowedInterface() throws {
        let uplinks = try TwoUplinks()
        defer { uplinks.remove() }
        let usual = try uplinks.reachability(.internet).currentSnapshot()
        #expect(usual.path.interface?.name == "rn1" && usual.status == .reachable(.cellular))

        for restriction in [InterfaceRestriction.noCellular, InterfaceRestriction(requiredType: .wifi)] {
            let snapshot = try uplinks.reachability(.restricted(.internet, restriction)).currentSnapshot()
            #expect(snapshot.status == .reachable(.ethernetOrWiFi), "\(restriction)")
            #expect(snapshot.path.interface?.name == "rn0" && snapshot.path.usesInterfaceType(.wifi))
            #expect(!snapshot.path.usesInterfaceType(.cellular))
            #expect(snapshot.path.gateway?.description == TestNetwork.gatewayIPv4)
            #expect(snapshot.target == .restricted(.internet, restriction))
        }
        let address = try uplinks.reachability(.restricted(.address(try IPAddress("203.0.113.5")), .noCellular))
        #expect(try address.currentSnapshot().path.interface?.name == "rn0")
        let cellularOnly = try uplinks.reachability(.restricted(.internet, InterfaceRestriction(requiredType: .cellular)))
        #expect(try cellularOnly.currentSnapshot().path.interface?.name == "rn1")
    }

    @Test func aListenerWithoutCellularHearsTheWiFiRouteGoAndComeBack() throws {
        let uplinks = try TwoUplinks()
        defer { uplinks.remove() }
        let reachability = try uplinks.reachability(.restricted(.internet, .noCellular))
        let seen = Recorder<ReachabilitySnapshot>()
        let consumer = try reachability.addConsumer(rule: .snapshot) { seen.append($0) }
        defer { reachability.removeConsumer(consumer) }
        #expect(seen.waitFor(1).last?.path.interface?.name == "rn0")

        // Only the cellular uplink carries the internet now: not reachable, and the reason says why
        try uplinks.network.ip("route", "del", "default", "via", TestNetwork.gatewayIPv4)
        #expect(eventually { seen.values.last?.status == .notReachable })
        #expect(seen.values.last?.path.reason == .prohibitedInterfaceType)

        try uplinks.network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4, "metric", "200")
        #expect(eventually { seen.values.last?.status == .reachable(.ethernetOrWiFi) })
        #expect(seen.values.last?.path.interface?.name == "rn0")
    }
}
