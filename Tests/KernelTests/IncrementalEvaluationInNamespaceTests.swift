import Foundation
import Logging
import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// The monitor re-evaluates only the targets a change can touch, and never misses one it does touch.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct IncrementalEvaluationInNamespaceTests {
    /// Listening address targets 10.0.0.1, 10.0.0.2 … (the `count`th), each with its own recorder of snapshots.
    private final class Fleet: @unchecked Sendable {
        let monitor: ReachabilityMonitor
        let objects: [NetworkReachability]
        let heard: [Recorder<ReachabilitySnapshot>]
        /// What the monitor logged (the first target's logger: one label, so each line once).
        let log = Recorder<String>()

        init(in network: TestNetwork, count: Int) throws {
            let monitor = ReachabilityMonitor(backend: LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name)))
            self.monitor = monitor
            let log = log
            objects = try (1...count).map { index in
                try NetworkReachability(
                    target: .address(IPAddress("10.0.\(index >> 8).\(index & 255)")), monitor: monitor,
                    logger: index == 1 ? Logger(label: "fleet") { _ in RecordingLogHandler(log) } : NetworkReachability.silentLogger)
            }
            heard = objects.map { _ in Recorder<ReachabilitySnapshot>() }
            for (object, recorder) in zip(objects, heard) {
                try object.addConsumer(named: "test", rule: .snapshot, deliver: { recorder.append($0) })
            }
            for recorder in heard { recorder.waitFor(1) }
        }

        var evaluations: Int { monitor.statistics.targetEvaluations }

        /// Whether every target comes to the status `expected` gives its number (from 1), in the usual wait.
        func settle(_ expected: @escaping (Int) -> NetworkReachabilityStatus) -> Bool {
            eventually { zip(1..., self.heard).allSatisfy { $1.values.last?.status == expected($0) } }
        }

        /// Whether every target's last snapshot has the path a read of it finds now.
        func matchReads(upTo count: Int? = nil) throws -> Bool {
            try zip(objects, heard).prefix(count ?? objects.count).allSatisfy { object, recorder in
                try recorder.values.last?.path == object.currentSnapshot().path
            }
        }

        /// Adds an unreachable /32 route for target `index` and waits until it hears it: a change that
        /// touches exactly one target, which marks that the monitor has handled every change before it.
        func touchOnly(_ index: Int, in network: TestNetwork) throws {
            let before = heard[index - 1].values.count
            try network.ip("route", "add", "unreachable", "10.0.0.\(index)/32")
            #expect(heard[index - 1].waitFor(before + 1).last?.status == .notReachable)
        }

        func stop() { for object in objects { object.removeConsumer(named: "test") } }

        /// Each target's statuses and gateways as heard, and the monitor's log: what a failed check shows.
        var account: String {
            let heardLines = heard.enumerated().map { offset, recorder in
                "\(offset + 1): " + recorder.values.map { "\($0.status) \($0.path.gateway?.description ?? "-")" }
                    .joined(separator: ", ")
            }
            return (heardLines + ["log:"] + log.values).joined(separator: "\n")
        }
    }

    @Test func aRouteElsewhereAndAnotherInterfacesAddressCostNoLookups() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let fleet = try Fleet(in: network, count: 100)
        defer { fleet.stop() }
        let before = fleet.evaluations
        try network.ip("route", "add", "198.51.100.9/32", "via", TestNetwork.gatewayIPv4)
        try network.ip("route", "del", "198.51.100.9/32")
        try network.ip("link", "add", "rx0", "type", "veth", "peer", "name", "rx1")
        try network.ip("addr", "add", "172.16.0.2/24", "dev", "rx0")
        try fleet.touchOnly(7, in: network)
        // Only target 7 was asked again; without selection every change would have cost all 100.
        #expect(fleet.evaluations - before == 1)
        #expect(fleet.heard.enumerated().allSatisfy { $0.offset == 6 || $0.element.values.count == 1 })
    }

    @Test func aPrefixReachesExactlyTheTargetsInsideIt() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let fleet = try Fleet(in: network, count: 40)
        defer { fleet.stop() }
        let before = fleet.evaluations
        try network.ip("route", "add", "unreachable", "10.0.0.16/28")
        for index in 16...31 { #expect(fleet.heard[index - 1].waitFor(2).last?.status == .notReachable) }
        #expect(fleet.evaluations - before == 16)
        try network.ip("route", "del", "unreachable", "10.0.0.16/28")
        for index in 16...31 { #expect(fleet.heard[index - 1].waitFor(3).last?.status == .reachable(.ethernetOrWiFi)) }
        for (offset, recorder) in fleet.heard.enumerated() where !(15...30).contains(offset) {
            #expect(recorder.valuesAfterQuiet(0.2).count == 1, "target \(offset + 1) heard a change outside its route")
        }
    }

    /// A target whose last consumer left is forgotten, and a new target that comes after it must hear its own
    /// answers and rest on its own route only, nothing of the one before.
    @Test func aNewTargetAfterOneThatLeftRestsOnlyOnItsOwnRoute() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let fleet = try Fleet(in: network, count: 3)
        defer { fleet.stop() }
        fleet.objects[1].removeConsumer(named: "test")
        let newcomer = try NetworkReachability(
            target: .address(IPAddress("10.0.0.200")), monitor: fleet.monitor, logger: NetworkReachability.silentLogger)
        let heard = Recorder<ReachabilitySnapshot>()
        try newcomer.addConsumer(named: "test", rule: .snapshot, deliver: { heard.append($0) })
        defer { newcomer.removeConsumer(named: "test") }
        #expect(heard.waitFor(1).first?.target == .address(try IPAddress("10.0.0.200")))

        let before = fleet.evaluations
        try network.ip("route", "add", "unreachable", "10.0.0.2/32")  // the departed target's route
        try fleet.touchOnly(3, in: network)
        #expect(fleet.evaluations - before == 1)
        try network.ip("route", "add", "unreachable", "10.0.0.200/32")
        let second = heard.waitFor(2)
        #expect(second.last?.target == .address(try IPAddress("10.0.0.200")))
        #expect(second.last?.status == .notReachable)
    }

    /// A pass describes targets that get the same route back only once; targets whose routes differ in gateway,
    /// source or interface, evaluated in one pass, must each keep their own path, as a read of each finds it.
    @Test func targetsBehindDifferentRoutesInOnePassKeepTheirOwnPaths() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("addr", "add", "192.0.2.3/24", "dev", "rn0")
        try network.ip("link", "add", "rx0", "type", "veth", "peer", "name", "rx1")
        try network.ip("link", "set", "rx0", "up")
        try network.ip("route", "add", "10.0.0.1/32", "via", TestNetwork.gatewayIPv4)
        try network.ip("route", "add", "10.0.0.2/32", "via", "192.0.2.9")
        try network.ip("route", "add", "10.0.0.3/32", "via", TestNetwork.gatewayIPv4, "src", "192.0.2.3")
        try network.ip("route", "add", "10.0.0.4/32", "dev", "rx0", "src", TestNetwork.hostIPv4)
        try network.ip("route", "add", "10.0.0.5/32", "dev", "rn0", "src", TestNetwork.hostIPv4)
        let fleet = try Fleet(in: network, count: 6)  // 10.0.0.6 by the default route
        defer { fleet.stop() }
        // A route around all six makes one pass evaluate them together, answers unchanged; .6 then marks its end.
        try network.ip("route", "add", "10.0.0.0/24", "via", TestNetwork.gatewayIPv4, "metric", "7")
        try fleet.touchOnly(6, in: network)
        let paths = fleet.heard.prefix(5).map { $0.values.last?.path }
        for (index, path) in paths.enumerated() {
            let read = try fleet.monitor.backend.evaluate(
                .address(IPAddress("10.0.0.\(index + 1)")), resolutionTimeout: .seconds(1))
            #expect(path == read.path, "target \(index + 1)")
        }
        #expect(paths[1]?.gateway == (try IPAddress("192.0.2.9")))
        #expect(paths[2]?.sourceAddress == (try IPAddress("192.0.2.3")))
        #expect(paths[3]?.interface?.name == "rx0" && paths[3]?.gateway == nil)
        #expect(paths[4]?.interface?.name == "rn0" && paths[4]?.gateway == nil)
    }

    @Test func theDefaultRouteReachesEveryTargetBehindIt() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let fleet = try Fleet(in: network, count: 50)
        defer { fleet.stop() }
        try network.ip("route", "del", "default")
        for recorder in fleet.heard { #expect(recorder.waitFor(2).last?.status == .notReachable) }
    }

    @Test func aLinkGoingDownReachesTheTargetsThatLeaveThroughIt() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let fleet = try Fleet(in: network, count: 20)
        defer { fleet.stop() }
        // The kernel flushes IPv4 routes through a downed link without a route notification.
        try network.ip("link", "set", "rn0", "down")
        for recorder in fleet.heard { #expect(recorder.waitFor(2).last?.status == .notReachable) }
    }

    /// With `ignore_routes_with_linkdown`, a route through a link without carrier is skipped; when carrier
    /// returns the kernel revives it without any IPv4 route notification, and a target whose answer rested
    /// on another link must still move to it.
    @Test func carrierReturningRevivesARouteWithoutNotificationAndTheTargetMoves() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        #expect(try network.run(["sysctl", "-qw", "net.ipv4.conf.all.ignore_routes_with_linkdown=1"]).status == 0)
        try network.ip("link", "add", "rx0", "type", "veth", "peer", "name", "rx1")
        try network.ip("addr", "add", "172.16.0.2/24", "dev", "rx0")
        try network.ip("link", "set", "rx0", "up")  // no carrier: its peer is down
        try network.ip("route", "add", "10.0.0.0/24", "dev", "rx0", "metric", "5")
        let fleet = try Fleet(in: network, count: 3)
        defer { fleet.stop() }
        #expect(fleet.heard[0].values.first?.path.interface?.name == "rn0")
        try network.ip("link", "set", "rx1", "up")
        #expect(fleet.heard[0].waitFor(2).last?.path.interface?.name == "rx0")
    }

    // MARK: - One lookup for the targets behind a changed route

    /// The targets behind a changed default route are answered together (``RouteSharing``): each must still hear
    /// its own target, and the answer a read of it finds.
    @Test func aDefaultRouteChangeReachesEveryTargetBehindItWithItsOwnAnswer() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let fleet = try Fleet(in: network, count: 40)
        defer { fleet.stop() }
        try network.ip("route", "del", "default")
        for recorder in fleet.heard { #expect(recorder.waitFor(2).last?.status == .notReachable) }
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        for recorder in fleet.heard { #expect(recorder.waitFor(3).last?.path.gateway?.description == TestNetwork.gatewayIPv4) }
        try network.ip("route", "replace", "default", "via", "192.0.2.9")
        for recorder in fleet.heard { #expect(recorder.waitFor(4).last?.path.gateway?.description == "192.0.2.9") }
        #expect(zip(fleet.objects, fleet.heard).allSatisfy { $1.values.last?.target == $0.target })
        #expect(try fleet.matchReads())
    }

    /// Queued deliveries of one pass go to each queue as one block: over two queues and hundreds of targets, each
    /// snapshot consumer hears its own target's snapshot, first and after a change, and each status listener its own
    /// target's status.
    @Test func queuedDeliveriesOfSeveralPartsEachCarryTheirOwnTarget() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let monitor = ReachabilityMonitor(backend: LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name)))
        let count = 532
        let objects = try (1...count).map { index in
            try NetworkReachability(
                target: .address(IPAddress("10.0.\(index >> 8).\(index & 255)")), monitor: monitor,
                logger: NetworkReachability.silentLogger)
        }
        defer { for object in objects { object.removeConsumer(named: "test") } }
        defer { for object in objects { object.stopListening() } }
        let (snapshotQueue, statusQueue) = (DispatchQueue(label: "snapshots"), DispatchQueue(label: "statuses"))
        let snapshots = objects.map { _ in Recorder<ReachabilitySnapshot>() }
        let statuses = objects.map { _ in Recorder<NetworkReachabilityStatus>() }
        for (object, recorder) in zip(objects, snapshots) {
            #expect(
                (try? object.addConsumer(named: "test", rule: .snapshot, queue: snapshotQueue) { recorder.append($0) }) != nil)
        }
        for recorder in snapshots { recorder.waitFor(1) }
        #expect(zip(objects, snapshots).allSatisfy { $1.values.first?.target == $0.target })
        // Every third target is also unreachable by a route of its own, so that neighbouring positions differ.
        for index in stride(from: 3, through: count, by: 3) {
            try network.ip("route", "add", "unreachable", "10.0.\(index >> 8).\(index & 255)/32")
        }
        let expected = { (index: Int) in index % 3 == 0 ? NetworkReachabilityStatus.notReachable : .reachable(.ethernetOrWiFi) }
        #expect(eventually { zip(1..., snapshots).allSatisfy { $1.values.last?.status == expected($0) } })
        for (object, recorder) in zip(objects, statuses) {
            #expect(object.startListening(onQueue: statusQueue) { recorder.append($0) })
        }
        #expect(eventually { zip(1..., statuses).allSatisfy { $1.values.last == expected($0) } })
        // These consumers hear changes of flags: losing the default route is one for two thirds of the targets.
        try network.ip("route", "del", "default")
        for (index, recorder) in zip(1..., snapshots) where index % 3 != 0 {
            #expect(recorder.waitFor(2).last?.status == .notReachable)
        }
        #expect(zip(objects, snapshots).allSatisfy { $1.values.allSatisfy { [target = $0.target] in $0.target == target } })
        #expect(eventually { statuses.allSatisfy { $0.values.last == .notReachable } })
    }

    /// Most answers after a default route's change are made from another member's: each names its own target and
    /// rests on its own address, and the targets come back together, bar one that a refusing route parts.
    @Test func sharedAnswersNameTheirOwnTargetAndRestOnTheirOwnAddress() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let fleet = try Fleet(in: network, count: 300)
        defer { fleet.stop() }
        try network.ip("route", "del", "default")
        for recorder in fleet.heard { #expect(recorder.waitFor(2).last?.status == .notReachable) }
        #expect(zip(fleet.objects, fleet.heard).allSatisfy { $1.values.last?.target == $0.target })
        // A route for the last target alone: once it hears that, the monitor has handled everything before it. The
        // last target's answer was made from another member's, so this also shows it rests on its own address.
        let last = fleet.objects.count
        try network.ip("route", "add", "10.0.\(last >> 8).\(last & 255)/32", "via", TestNetwork.gatewayIPv4)
        #expect(fleet.heard[last - 1].waitFor(3).last?.status == .reachable(.ethernetOrWiFi))
        #expect(fleet.heard.dropLast().allSatisfy { $0.values.count == 2 })
        // Back through the default route, answered alike again; then a refusing route for one of them alone.
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        for recorder in fleet.heard.dropLast() { #expect(recorder.waitFor(3).last?.status == .reachable(.ethernetOrWiFi)) }
        #expect(zip(fleet.objects, fleet.heard).allSatisfy { $1.values.last?.target == $0.target })
        let other = last - 1
        try network.ip("route", "add", "unreachable", "10.0.\(other >> 8).\(other & 255)/32")
        #expect(fleet.heard[other - 1].waitFor(4).last?.status == .notReachable)
        #expect(try fleet.matchReads())
    }

    /// The `default` table is looked up after `main`: a route there can part the targets that all matched `main`'s
    /// default route, so each is asked on its own.
    @Test func aRouteInTheDefaultTableInsideTheTargetsKeepsEachOnesOwnAnswer() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "add", "10.0.0.16/28", "via", TestNetwork.gatewayIPv4, "table", "default")
        let fleet = try Fleet(in: network, count: 40)
        defer { fleet.stop() }
        try network.ip("route", "del", "default")
        #expect(fleet.settle { (16...31).contains($0) ? .reachable(.ethernetOrWiFi) : .notReachable })
        #expect(try fleet.matchReads())
    }

    /// What a pass found of the `default` table ends with the pass: a route added there after a pass that found the
    /// table empty parts the targets at the next change.
    @Test func whatAPassFoundOfTheDefaultTableEndsWithThePass() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let fleet = try Fleet(in: network, count: 40)
        defer { fleet.stop() }
        try network.ip("route", "del", "default")  // all share one answer: the pass found the `default` table empty
        #expect(fleet.settle { _ in .notReachable })
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        #expect(fleet.settle { _ in .reachable(.ethernetOrWiFi) })
        try network.ip("route", "add", "10.0.0.16/28", "via", TestNetwork.gatewayIPv4, "table", "default")
        try fleet.touchOnly(40, in: network)  // that route's pass is over
        try network.ip("route", "del", "default")
        #expect(fleet.settle { (16...31).contains($0) ? .reachable(.ethernetOrWiFi) : .notReachable })
        #expect(try fleet.matchReads())
    }

    /// Routes that refuse packets or pass them on inside the targets' prefix kept some of them unreachable while
    /// nothing carried them: when a default route comes back, those stay unreachable, and only the others share its
    /// answer. (An `unreachable` route's lookups fail with EHOSTUNREACH and never join a group; a `throw` route's fail
    /// with ENETUNREACH, as if nothing matched.)
    @Test func anUnreachableRouteAroundSomeTargetsKeepsThemApartWhenADefaultRouteComes() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "add", "unreachable", "10.0.0.16/28")
        try network.ip("route", "add", "throw", "10.0.0.32/30")
        let fleet = try Fleet(in: network, count: 40)
        defer { fleet.stop() }
        try network.ip("route", "del", "default")
        for (offset, recorder) in fleet.heard.enumerated() where !(15...34).contains(offset) {
            #expect(recorder.waitFor(2).last?.status == .notReachable, "target \(offset + 1)")
        }
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        #expect(fleet.settle { (16...35).contains($0) ? .notReachable : .reachable(.ethernetOrWiFi) })
        #expect(try fleet.matchReads())
    }

    /// The refusing routes are read once, then kept from notifications: one added after that read keeps its targets
    /// apart all the same.
    @Test func aRefusingRouteAddedAfterTheyWereReadIsKeptFromItsNotification() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let fleet = try Fleet(in: network, count: 40)
        defer { fleet.stop() }
        try network.ip("route", "del", "default")
        for recorder in fleet.heard { #expect(recorder.waitFor(2).last?.status == .notReachable) }
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)  // reads the refusing routes: none
        for recorder in fleet.heard { #expect(recorder.waitFor(3).last?.status == .reachable(.ethernetOrWiFi)) }
        // `throw`: their lookups end as if nothing matched (ENETUNREACH), so they would join the others' group
        try network.ip("route", "add", "throw", "10.0.0.16/28")
        for offset in 15...30 { #expect(fleet.heard[offset].waitFor(4).last?.status == .notReachable) }
        try network.ip("route", "del", "default")
        #expect(fleet.settle { _ in .notReachable })  // heard, or the end state below would be the state before
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        #expect(fleet.settle { (16...31).contains($0) ? .notReachable : .reachable(.ethernetOrWiFi) })
        #expect(try fleet.matchReads())
    }

    /// A policy rule of its own can part the targets too: here one consulted after `main` and `default`.
    @Test func aPolicyRuleOfItsOwnMakesEachTargetBeAskedOnItsOwn() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4, "table", "100")
        try network.ip("rule", "add", "pref", "32800", "to", "10.0.0.16/28", "lookup", "100")
        let fleet = try Fleet(in: network, count: 40)
        defer { fleet.stop() }
        try network.ip("route", "del", "default")
        #expect(fleet.settle { (16...31).contains($0) ? .reachable(.ethernetOrWiFi) : .notReachable })
        #expect(try fleet.matchReads())
    }

    /// Behind a route with several next hops the kernel picks one per destination: every target keeps its own.
    @Test func targetsBehindAMultipathRouteKeepTheNextHopTheKernelPicksForEach() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let fleet = try Fleet(in: network, count: 24)
        defer { fleet.stop() }
        try network.ip(
            "route", "replace", "default", "nexthop", "via", TestNetwork.gatewayIPv4, "nexthop", "via", "192.0.2.9")
        // Target 24 may hear the new route first: its unreachable answer marks the end all the same.
        try network.ip("route", "add", "unreachable", "10.0.0.24/32")
        #expect(eventually { fleet.heard[23].values.last?.status == .notReachable })
        let gateways = Set(fleet.heard.dropLast().compactMap { $0.values.last?.path.gateway?.description })
        #expect(gateways == [TestNetwork.gatewayIPv4, "192.0.2.9"], "\(fleet.account)")
        #expect(try fleet.matchReads(upTo: 23), "\(fleet.account)")
    }
}
