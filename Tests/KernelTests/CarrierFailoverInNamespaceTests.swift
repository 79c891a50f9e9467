import Foundation
import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux

/// What Semantics and Migrating say of a link that loses carrier: Linux keeps its routes and chooses them still, so
/// the internet is not reachable while a backup route of a higher metric waits; told to look past routes whose link
/// is down (`ignore_routes_with_linkdown`), the kernel takes the backup, and so does every status here.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct CarrierFailoverInNamespaceTests {
    @Test func aRouteWhoseLinkLostCarrierIsChosenUntilTheKernelIsToldToLookPastIt() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.addSecondUplink()
        try network.ip("route", "add", "default", "via", TestNetwork.secondGatewayIPv4, "metric", "200")  // the backup
        let monitor = ReachabilityMonitor(backend: LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name)))
        let internet = try NetworkReachability(target: .internet, monitor: monitor, logger: NetworkReachability.silentLogger)
        let usual = try internet.currentSnapshot()
        #expect(usual.status == .reachable(.ethernetOrWiFi) && usual.path.interface?.name == "rn0")

        // The gateway's end goes down: rn0 has no carrier, and its route is still the one a packet would take
        try network.gatewayIP("link", "set", "rngw", "down")
        try network.waitForOperationalState("DOWN", of: "rn0")
        let dead = try internet.currentSnapshot()
        #expect(dead.status == .notReachable && dead.path.reason == .noCarrier && dead.path.interface?.name == "rn0")
        #expect(dead.flags == [.reachable, .connectionRequired])
        let kernel = try network.run(["ip", "route", "get", "203.0.113.9"]).standardOutput
        #expect(kernel.contains("dev rn0"), "\(kernel)")

        // Told to look past routes whose link is down, the kernel takes the backup, and so does the status
        try network.run(["sysctl", "-qw", "net.ipv4.conf.rn0.ignore_routes_with_linkdown=1"])
        let failedOver = try internet.currentSnapshot()
        #expect(failedOver.status == .reachable(.ethernetOrWiFi) && failedOver.path.interface?.name == "rn1")
        #expect(try network.run(["ip", "route", "get", "203.0.113.9"]).standardOutput.contains("dev rn1"))
    }
}
