import Dispatch
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// Reading the state once, through the library, against the real kernel in a namespace.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct SynchronousReadInNamespaceTests {
    /// A monitor of its own in `network`.
    private func monitor(in network: TestNetwork) -> ReachabilityMonitor {
        ReachabilityMonitor(backend: LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name)))
    }

    /// The on-link gateway as a target, read once: the query socket is open and the route's link learned.
    private func gatewayReadOnce(in network: TestNetwork) throws -> NetworkReachability {
        let gateway = try NetworkReachability(
            target: .address(IPAddress(TestNetwork.gatewayIPv4)), monitor: monitor(in: network),
            logger: NetworkReachability.silentLogger)
        #expect(try gateway.currentSnapshot().flags == [.reachable, .isDirect])
        return gateway
    }

    /// In `network`, after an `unreachable` route over 198.51.100.0/24 is added: a monitor of its own, an address
    /// that route covers, and the on-link gateway, neither read yet.
    private func unroutedAndGateway(in network: TestNetwork) throws
        -> (monitor: ReachabilityMonitor, unrouted: NetworkReachability, gateway: NetworkReachability)
    {
        try network.ip("route", "add", "unreachable", "198.51.100.0/24")
        let monitor = monitor(in: network)
        let target = { (address: String) in
            try NetworkReachability(
                target: .address(IPAddress(address)), monitor: monitor, logger: NetworkReachability.silentLogger)
        }
        return (monitor, try target("198.51.100.7"), try target(TestNetwork.gatewayIPv4))
    }

    @Test func readingAnAddressAgainGivesItsRouteAndLink() throws {
        // Given a reachability object for the on-link gateway, read once (the route's link is learned)
        let network = try TestNetwork()
        defer { network.remove() }
        let gateway = try gatewayReadOnce(in: network)
        // When it is read again, then the answer is complete
        let snapshot = try gateway.currentSnapshot()
        #expect(snapshot.flags == [.reachable, .isDirect])
        #expect(snapshot.path.interface?.name == "rn0")
        #expect(snapshot.path.interface?.linkKind == "veth")
        #expect(snapshot.path.sourceAddress?.description == TestNetwork.hostIPv4)
    }

    @Test func anUnroutedAddressIsAskedAfreshEachTime() throws {
        // Given an IPv4 address an `unreachable` route covers, and the gateway, read once each
        let network = try TestNetwork()
        defer { network.remove() }
        let (_, unrouted, gateway) = try unroutedAndGateway(in: network)
        #expect(try unrouted.currentSnapshot().flags == [])
        #expect(try gateway.currentSnapshot().flags == [.reachable, .isDirect])
        #expect(unrouted.flags == [])
        // When its route goes, then the next read finds it reachable through the default route
        try network.ip("route", "del", "unreachable", "198.51.100.0/24")
        #expect(unrouted.flags == [.reachable])
        #expect(gateway.flags == [.reachable, .isDirect])
    }

    /// Has the gateway of `network` advertise PREF64 64:ff9b::/96, and `monitor` hear it: the returned object
    /// listens, and a read of it lists the prefix. Stop it listening when done.
    private func listenToAdvertisedNAT64(in network: TestNetwork, monitor: ReachabilityMonitor) throws -> NetworkReachability {
        try listenToAdvertisedNAT64AndAnnouncer(in: network, monitor: monitor).internet
    }

    /// The same, with the process that sends the advertisements.
    private func listenToAdvertisedNAT64AndAnnouncer(in network: TestNetwork, monitor: ReachabilityMonitor) throws
        -> (internet: NetworkReachability, announcer: Subprocess)
    {
        let announcer = try network.startRouterAdvertisements(prefixLifetime: 1800)
        let internet = try NetworkReachability(target: .internet, monitor: monitor, logger: NetworkReachability.silentLogger)
        #expect(internet.startListening(onQueue: DispatchQueue(label: "internet")) { _ in })
        #expect(eventually { (try? internet.currentSnapshot().path.nat64Prefixes.map(\.prefix.description)) == ["64:ff9b::/96"] })
        return (internet, announcer)
    }

    @Test func onAnIPv6OnlyNetworkAnIPv4ReadGoesThroughNAT64UntilThePrefixIsWithdrawn() throws {
        // Given an IPv6-only network whose router advertises PREF64 64:ff9b::/96, heard by a listening monitor
        let network = try TestNetwork(ipv4: false, ipv6: true)
        defer { network.remove() }
        let monitor = monitor(in: network)
        let (internet, announcer) = try listenToAdvertisedNAT64AndAnnouncer(in: network, monitor: monitor)
        defer { internet.stopListening() }
        let literal = try NetworkReachability(
            target: .address(IPAddress("192.0.2.33")), monitor: monitor, logger: NetworkReachability.silentLogger)
        // When an IPv4 address is read again and again, then NAT64 carries it every time
        #expect(literal.flags == [.reachable])
        #expect(literal.flags == [.reachable])
        #expect(try literal.currentSnapshot().path.synthesizedAddress?.description == "64:ff9b::c000:221")
        // And when the router withdraws the prefix, the next read after the monitor heard it finds no NAT64
        announcer.send(SIGKILL)
        announcer.wait()
        _ = try network.startRouterAdvertisements(prefixLifetime: 0)
        #expect(eventually { (try? internet.currentSnapshot().path.nat64Prefixes.isEmpty) == true })
        #expect(literal.flags == [])
        #expect(try literal.currentSnapshot().path.synthesizedAddress == nil)
    }

    @Test func aUsableIPv4InternetNeverHidesNAT64WhenItGoesAwayEvenInAStorm() throws {
        // Given a dual-stack network whose router advertises PREF64 64:ff9b::/96, heard by a listening monitor
        let network = try TestNetwork()
        defer { network.remove() }
        let (monitor, unrouted, _) = try unroutedAndGateway(in: network)
        let internet = try listenToAdvertisedNAT64(in: network, monitor: monitor)
        defer { internet.stopListening() }
        // And an IPv4 address an `unreachable` route covers, read beside a usable IPv4 internet
        #expect(unrouted.flags == [])
        // When the IPv4 internet goes away, then the very next read finds NAT64 carrying the address
        try network.ip("route", "del", "default")
        #expect(unrouted.flags == [.reachable])
        let snapshot = try unrouted.currentSnapshot()
        #expect(snapshot.flags == [.reachable])
        #expect(snapshot.path.synthesizedAddress?.description == "64:ff9b::c633:6407")
        // And when it comes back, the next read finds the address unreachable again
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        #expect(unrouted.flags == [])
        #expect(try unrouted.currentSnapshot().path.synthesizedAddress == nil)
        // And when 20,000 route notifications, far more than the request socket holds, end with the IPv4 default
        // route's removal while nobody reads, then the next read finds NAT64 again (after `ENOBUFS`, asked anew)
        try network.floodRoutes(20_000, finally: "route del default")
        #expect(unrouted.flags == [.reachable])
        #expect(try unrouted.currentSnapshot().path.synthesizedAddress?.description == "64:ff9b::c633:6407")
    }

    @Test func concurrentUnroutedReadsNeverGiveAStateOlderThanTheirStart() throws {
        // Given NAT64 advertised, and an IPv4 address an `unreachable` route covers
        let network = try TestNetwork()
        defer { network.remove() }
        let (monitor, unrouted, _) = try unroutedAndGateway(in: network)
        let internet = try listenToAdvertisedNAT64(in: network, monitor: monitor)
        defer { internet.stopListening() }
        // When four threads read it while the IPv4 default route goes away and comes back, ten times each
        struct Phase: Sendable {
            var changes = 0
            var isChanging = false
            var isOver = false
        }
        let phase = Locked(Phase())
        let checked = Locked([0, 0])
        let wrong = Locked<[String]>([])
        let readers = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: readers) { @Sendable in
                while !phase.withLock({ $0.isOver }) {
                    let before = phase.withLock { $0 }
                    let flags = unrouted.flags
                    let after = phase.withLock { $0 }
                    // Only reads that no change overlapped: their state is known.
                    guard !before.isChanging, !after.isChanging, before.changes == after.changes else { continue }
                    let ipv4InternetIsGone = before.changes % 2 == 1
                    let expected: ReachabilityFlags = ipv4InternetIsGone ? [.reachable] : []
                    checked.withLock { $0[ipv4InternetIsGone ? 1 : 0] += 1 }
                    if flags != expected {
                        wrong.withLock { $0.append("after \(before.changes) changes: \(String(describing: flags))") }
                    }
                }
            }
        }
        defer {
            phase.withLock { $0.isOver = true }
            readers.wait()
        }
        for change in 0..<20 {
            phase.withLock { $0.isChanging = true }
            if change % 2 == 0 {
                try network.ip("route", "del", "default")
            } else {
                try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
            }
            let state = (change + 1) % 2
            let readBefore = checked.withLock { $0[state] }
            phase.withLock {
                $0.changes += 1
                $0.isChanging = false
            }
            // The readers read this state a while: at least twice, however busy the machine is (within reason).
            _ = eventually(timeout: 5) { checked.withLock { $0[state] } >= readBefore + 2 }
            usleep(5_000)
        }
        // Then every read no change overlapped gave the state it began and ended in, and there were many of each
        #expect(wrong.withLock { $0 }.isEmpty, "\(wrong.withLock { $0.prefix(5) })")
        #expect(checked.withLock { $0 }.allSatisfy { $0 >= 20 }, "\(checked.withLock { $0 })")
    }

    @Test func aFlagsReadGivesTheSnapshotsFlags() throws {
        // Given an IPv4 address an `unreachable` route covers, and the on-link gateway
        let network = try TestNetwork()
        defer { network.remove() }
        let (_, unrouted, gateway) = try unroutedAndGateway(in: network)
        // When only the flags are read, then they are the snapshot's
        #expect(gateway.flags == [.reachable, .isDirect])
        #expect(unrouted.flags == [])
        #expect(try unrouted.currentSnapshot().flags == [])
        #expect(gateway.flags == [.reachable, .isDirect])
        // And the flags follow the link as a full read does: carrier lost, a connection is required
        try network.gatewayIP("link", "set", "rngw", "down")
        try network.waitForOperationalState("DOWN", of: "rn0")
        #expect(gateway.flags == [.reachable, .connectionRequired, .isDirect])
        #expect(try gateway.currentSnapshot().flags == [.reachable, .connectionRequired, .isDirect])
    }

    @Test func aLinkChangeBetweenReadsArrivesWithTheNextAnswer() throws {
        // Given the on-link gateway, read once (the route's link is learned)
        let network = try TestNetwork()
        defer { network.remove() }
        let gateway = try gatewayReadOnce(in: network)
        // When the link loses carrier (the route stays, so a connection is required; the kernel may announce it
        // up to a second later), then a read sees it, the notification having come in on the same socket
        try network.gatewayIP("link", "set", "rngw", "down")
        #expect(eventually { (try? gateway.currentSnapshot().flags) == [.reachable, .connectionRequired, .isDirect] })
        // And carrier back is seen the same way
        try network.gatewayIP("link", "set", "rngw", "up")
        #expect(eventually { (try? gateway.currentSnapshot().flags) == [.reachable, .isDirect] })
    }

    @Test func aReadAfterTheLinkNotificationsOverflowedAsksAgainAndIsRight() throws {
        // Given the gateway, read once, so the socket follows link notifications from now on
        let network = try TestNetwork()
        defer { network.remove() }
        let gateway = try gatewayReadOnce(in: network)
        // When thousands of link notifications arrive while nobody reads, far more than the socket holds
        try network.flapLink("rn0", times: 1_500)
        let snapshot = try gateway.currentSnapshot()
        // Then the answer is the link as it is
        #expect(snapshot.flags == [.reachable, .isDirect])
        #expect(snapshot.path.interface?.name == "rn0")
    }

    @Test func aRouteThatMovedStillGetsItsOwnLink() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        let monitor = monitor(in: network)
        let target = try NetworkReachability(
            target: .address(IPAddress("10.200.0.2")), monitor: monitor, logger: NetworkReachability.silentLogger)
        try network.ip("route", "add", "10.200.0.0/24", "dev", "lo")
        #expect(try target.currentSnapshot().path.interface?.name == "lo")
        // When the route moves to another interface, the stale guess is not used
        try network.ip("route", "replace", "10.200.0.0/24", "dev", "rn0")
        let moved = try target.currentSnapshot()
        #expect(moved.path.interface?.name == "rn0")
        #expect(moved.path.interface?.type == .wiredEthernet)
    }

    @Test func linkLocalNetworkIsReachableThroughAnInterfaceWithAnFe80Address() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        let monitor = monitor(in: network)
        let linkLocal = try NetworkReachability(target: .linkLocal, monitor: monitor, logger: NetworkReachability.silentLogger)
        let snapshot = try linkLocal.currentSnapshot()
        #expect(snapshot.flags == [.reachable, .isDirect])
        #expect(snapshot.path.interface?.name == "rn0")
        #expect(snapshot.path.supportsIPv6)
        // When the only such interface loses carrier, the link-local network is gone
        try network.gatewayIP("link", "set", "rngw", "down")
        #expect(try linkLocal.currentSnapshot().flags == [])
    }

    @Test func zonesMustNameAnInterface() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        let monitor = monitor(in: network)
        let make = { (text: String) throws in
            _ = try NetworkReachability(
                target: .address(IPAddress(text)), monitor: monitor, logger: NetworkReachability.silentLogger)
        }
        #expect(throws: Never.self) { try make("fe80::1%rn0") }
        #expect(throws: ReachabilityError.unknownZone("nope0")) { try make("fe80::1%nope0") }
        #expect(throws: ReachabilityError.unknownZone("999")) { try make("fe80::1%999") }
        let zoned = try NetworkReachability(
            target: .address(IPAddress("fe80::1%rn0")), monitor: monitor, logger: NetworkReachability.silentLogger)
        #expect(try zoned.currentSnapshot().path.interface?.name == "rn0")
    }
}
