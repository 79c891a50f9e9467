import Dispatch
import Glibc
import Testing
import TestSupport

@testable import NetworkReachability

/// Reading the state once, through the library, against the real kernel in a namespace.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"))
struct SynchronousReadInNamespaceTests {
    /// A backend of its own in `network`, and the on-link gateway as a target, read once: the query socket is
    /// open and the route's link learned.
    private func gatewayReadOnce(in network: TestNetwork) throws -> (LinuxRoutingBackend, NetworkReachability) {
        let backend = LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name))
        let gateway = try NetworkReachability(
            target: .address(IPAddress(TestNetwork.gatewayIPv4)), backend: backend, logger: NetworkReachability.silentLogger)
        #expect(try gateway.currentSnapshot().flags == [.reachable, .isDirect])
        return (backend, gateway)
    }

    /// In `network`, after an `unreachable` route over 198.51.100.0/24 is added: a backend of its own, an address
    /// that route covers, and the on-link gateway, neither read yet.
    private func unroutedAndGateway(in network: TestNetwork) throws
        -> (backend: LinuxRoutingBackend, unrouted: NetworkReachability, gateway: NetworkReachability)
    {
        try network.ip("route", "add", "unreachable", "198.51.100.0/24")
        let backend = LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name))
        let target = { (address: String) in
            try NetworkReachability(
                target: .address(IPAddress(address)), backend: backend, logger: NetworkReachability.silentLogger)
        }
        return (backend, try target("198.51.100.7"), try target(TestNetwork.gatewayIPv4))
    }

    /// How many round trips `read` took, and what it gave.
    private static func counted<Value>(_ backend: LinuxRoutingBackend, _ read: () throws -> Value) rethrows -> (Int, Value) {
        let before = backend.synchronousExchangeCount
        let value = try read()
        return (backend.synchronousExchangeCount - before, value)
    }

    @Test func readingAnAddressAgainCostsOneKernelRoundTrip() throws {
        // Given a reachability object for the on-link gateway, read once (the route's link is learned)
        let network = try TestNetwork()
        defer { network.remove() }
        let (backend, gateway) = try gatewayReadOnce(in: network)
        // When it is read again
        let before = backend.synchronousExchangeCount
        let snapshot = try gateway.currentSnapshot()
        // Then route and link came back from one send, and the answer is complete
        #expect(backend.synchronousExchangeCount - before == 1)
        #expect(snapshot.flags == [.reachable, .isDirect])
        #expect(snapshot.path.interface?.name == "rn0")
        #expect(snapshot.path.interface?.linkKind == "veth")
        #expect(snapshot.path.sourceAddress?.description == TestNetwork.hostIPv4)
    }

    @Test func readingAnUnroutedAddressAgainCostsOneKernelRoundTripToo() throws {
        // Given an IPv4 address an `unreachable` route covers, read once: besides its own lookup, the read asked
        // the internet's routes (NAT64 could carry an unrouted IPv4 address) and learned the links they name
        let network = try TestNetwork()
        defer { network.remove() }
        let (backend, unrouted, gateway) = try unroutedAndGateway(in: network)
        let roundTrips = { (reachability: NetworkReachability) throws in
            try Self.counted(backend) { try reachability.currentSnapshot().flags }
        }
        #expect(try roundTrips(unrouted).1 == [])
        // When it is read again, then the internet's routes went out with its lookup: one round trip
        #expect(try roundTrips(unrouted) == (1, []))
        #expect(try roundTrips(unrouted) == (1, []))
        // And a routed address read next is still one round trip and right, and so is the one after it
        #expect(try roundTrips(gateway) == (1, [.reachable, .isDirect]))
        #expect(try roundTrips(gateway) == (1, [.reachable, .isDirect]))
        // And the address is asked afresh each time: its route gone, it is reachable through the default route
        try network.ip("route", "del", "unreachable", "198.51.100.0/24")
        #expect(try roundTrips(unrouted) == (1, [.reachable]))
    }

    /// A flags read of `reachability`: its kernel round trips, its requests, and the flags.
    private static func countedFlagsRead(_ backend: LinuxRoutingBackend, _ reachability: NetworkReachability)
        -> (roundTrips: Int, requests: Int, flags: ReachabilityFlags?)
    {
        let requestsBefore = backend.synchronousRequestCount
        let (roundTrips, flags) = counted(backend) { reachability.flags }
        return (roundTrips, backend.synchronousRequestCount - requestsBefore, flags)
    }

    @Test func anUnroutedReadKnowsHowNAT64StandsUntilTheKernelTellsOfAChange() throws {
        // Given an IPv4-only network (no DNS64 discovery ever starts), and an IPv4 address an `unreachable` route
        // covers, read once beside a usable IPv4 internet (the read asked the internet's routes after its own)
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let (backend, unrouted, _) = try unroutedAndGateway(in: network)
        let internet = try NetworkReachability(target: .internet, backend: backend, logger: NetworkReachability.silentLogger)
        _ = unrouted.flags
        let read = { Self.countedFlagsRead(backend, unrouted) }
        // When it is read again, then while the kernel tells of no change its own lookup goes out alone
        #expect(read() == (1, 1, []))
        #expect(read() == (1, 1, []))
        // And a route added anywhere has the IPv4 internet's route asked again, once, after its own lookup
        try network.ip("route", "add", "203.0.113.9/32", "via", TestNetwork.gatewayIPv4)
        #expect(read() == (2, 2, []))
        #expect(read() == (1, 1, []))
        // And so does an address added, and a policy rule
        try network.ip("addr", "add", "192.0.2.77/32", "dev", "rn0")
        #expect(read() == (2, 2, []))
        #expect(read() == (1, 1, []))
        try network.ip("rule", "add", "to", "203.0.113.0/24", "lookup", "main", "priority", "100")
        #expect(read() == (2, 2, []))
        #expect(read() == (1, 1, []))
        // And when another read has already read of a change, the IPv4 internet's route goes along with its own
        try network.ip("route", "add", "203.0.113.10/32", "via", TestNetwork.gatewayIPv4)
        #expect(internet.flags == [.reachable])
        #expect(read() == (1, 2, []))
        #expect(read() == (1, 1, []))
        // And when the IPv4 internet goes away, the next read asks it again, then the IPv6 internet's route
        try network.ip("route", "del", "default")
        #expect(read() == (3, 3, []))
        // And then, NAT64 not carrying the address, that stands as the IPv4 internet's use did
        #expect(read() == (1, 1, []))
        try network.ip("route", "add", "203.0.113.11/32", "via", TestNetwork.gatewayIPv4)
        #expect(read() == (2, 3, []))
        #expect(read() == (1, 1, []))
        // And when another read has already read of a change, both internet routes go along with its own
        try network.ip("route", "add", "203.0.113.12/32", "via", TestNetwork.gatewayIPv4)
        #expect(internet.flags == [])
        #expect(read() == (1, 3, []))
        #expect(read() == (1, 1, []))
    }

    /// Has the gateway of `network` advertise PREF64 64:ff9b::/96, and a monitor of `backend` hear it: the returned
    /// object listens, and a read of it lists the prefix. Stop it listening when done.
    private func listenToAdvertisedNAT64(in network: TestNetwork, backend: LinuxRoutingBackend) throws -> NetworkReachability {
        try listenToAdvertisedNAT64AndAnnouncer(in: network, backend: backend).internet
    }

    /// The same, with the process that sends the advertisements.
    private func listenToAdvertisedNAT64AndAnnouncer(in network: TestNetwork, backend: LinuxRoutingBackend) throws
        -> (internet: NetworkReachability, announcer: Subprocess)
    {
        let announcer = try network.startRouterAdvertisements(prefixLifetime: 1800)
        let internet = try NetworkReachability(target: .internet, backend: backend, logger: NetworkReachability.silentLogger)
        #expect(internet.startListening(onQueue: DispatchQueue(label: "internet")) { _ in })
        #expect(eventually { (try? internet.currentSnapshot().path.nat64Prefixes.map(\.prefix.description)) == ["64:ff9b::/96"] })
        return (internet, announcer)
    }

    @Test func onAnIPv6OnlyNetworkANAT64ReadSendsTheSynthesizedAddressAlongUntilTheProvisionsChange() throws {
        // Given an IPv6-only network whose router advertises PREF64 64:ff9b::/96, heard by a listening monitor
        let network = try TestNetwork(ipv4: false, ipv6: true)
        defer { network.remove() }
        let backend = LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name))
        let (internet, announcer) = try listenToAdvertisedNAT64AndAnnouncer(in: network, backend: backend)
        defer { internet.stopListening() }
        let literal = try NetworkReachability(
            target: .address(IPAddress("192.0.2.33")), backend: backend, logger: NetworkReachability.silentLogger)
        // When an IPv4 address is read again and again, then NAT64 carries it every time; and once the plan stands
        // (the DNS64 discovery the network started may end in between, and move it), a read sends its own lookup
        // and its synthesized address's together: one round trip
        #expect(literal.flags == [.reachable])
        #expect(eventually { Self.countedFlagsRead(backend, literal) == (1, 2, [.reachable]) })
        #expect(Self.countedFlagsRead(backend, literal).flags == [.reachable])
        #expect(try literal.currentSnapshot().path.synthesizedAddress?.description == "64:ff9b::c000:221")
        // And when the router withdraws the prefix, the next read after the monitor heard it finds no NAT64
        announcer.send(SIGKILL)
        announcer.wait()
        _ = try network.startRouterAdvertisements(prefixLifetime: 0)
        #expect(eventually { (try? internet.currentSnapshot().path.nat64Prefixes.isEmpty) == true })
        #expect(literal.flags == [])
        #expect(try literal.currentSnapshot().path.synthesizedAddress == nil)
    }

    @Test func aKnownUsableIPv4InternetNeverHidesNAT64WhenItGoesAwayEvenInAStorm() throws {
        // Given a dual-stack network whose router advertises PREF64 64:ff9b::/96, heard by a listening monitor
        let network = try TestNetwork()
        defer { network.remove() }
        let (backend, unrouted, _) = try unroutedAndGateway(in: network)
        let internet = try listenToAdvertisedNAT64(in: network, backend: backend)
        defer { internet.stopListening() }
        // And an IPv4 address an `unreachable` route covers, read until its reads go out alone
        _ = unrouted.flags
        _ = unrouted.flags
        #expect(Self.countedFlagsRead(backend, unrouted) == (1, 1, []))
        // When the IPv4 internet goes away, then the very next read finds NAT64 carrying the address
        try network.ip("route", "del", "default")
        #expect(Self.countedFlagsRead(backend, unrouted).flags == [.reachable])
        let snapshot = try unrouted.currentSnapshot()
        #expect(snapshot.flags == [.reachable])
        #expect(snapshot.path.synthesizedAddress?.description == "64:ff9b::c633:6407")
        // And when it comes back, the next read finds the address unreachable again
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        #expect(unrouted.flags == [])
        #expect(try unrouted.currentSnapshot().path.synthesizedAddress == nil)
        #expect(Self.countedFlagsRead(backend, unrouted) == (1, 1, []))
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
        let (backend, unrouted, _) = try unroutedAndGateway(in: network)
        let internet = try listenToAdvertisedNAT64(in: network, backend: backend)
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

    @Test func aFlagsReadCostsOneRoundTripAndGivesTheSnapshotsFlags() throws {
        // Given an IPv4 address an `unreachable` route covers, and the on-link gateway
        let network = try TestNetwork()
        defer { network.remove() }
        let (backend, unrouted, gateway) = try unroutedAndGateway(in: network)
        let flagsRead = { (reachability: NetworkReachability) in Self.counted(backend) { reachability.flags } }
        #expect(flagsRead(gateway).1 == [.reachable, .isDirect])
        // When only the flags are read, then a routed address costs one round trip
        #expect(flagsRead(gateway) == (1, [.reachable, .isDirect]))
        // And an unrouted one two the first time (the internet's routes are asked after its own), then one
        #expect(flagsRead(unrouted) == (2, []))
        #expect(flagsRead(unrouted) == (1, []))
        #expect(try unrouted.currentSnapshot().flags == [])
        // And the gateway read after it is one round trip again and right
        #expect(flagsRead(gateway) == (1, [.reachable, .isDirect]))
        // And the flags follow the link as a full read does: carrier lost, a connection is required
        try network.gatewayIP("link", "set", "rngw", "down")
        try network.waitForOperationalState("DOWN", of: "rn0")
        #expect(flagsRead(gateway).1 == [.reachable, .connectionRequired, .isDirect])
        #expect(try gateway.currentSnapshot().flags == [.reachable, .connectionRequired, .isDirect])
    }

    @Test func aLinkChangeBetweenReadsArrivesWithTheNextAnswer() throws {
        // Given the on-link gateway, read once (the route's link is learned)
        let network = try TestNetwork()
        defer { network.remove() }
        let (backend, gateway) = try gatewayReadOnce(in: network)
        // When the link loses carrier (the route stays, so a connection is required; the kernel may announce it
        // up to a second later)
        try network.gatewayIP("link", "set", "rngw", "down")
        var roundTrips: [Int] = []
        let read = { () -> ReachabilityFlags? in
            let before = backend.synchronousExchangeCount
            defer { roundTrips.append(backend.synchronousExchangeCount - before) }
            return try? gateway.currentSnapshot().flags
        }
        // Then a read sees it, the notification having come in with the route's answer on the same socket
        #expect(eventually { read() == [.reachable, .connectionRequired, .isDirect] })
        // And carrier back is seen the same way
        try network.gatewayIP("link", "set", "rngw", "up")
        #expect(eventually { read() == [.reachable, .isDirect] })
        // And every read took one round trip: no drain, no link query
        #expect(!roundTrips.isEmpty && roundTrips.allSatisfy { $0 == 1 })
    }

    @Test func aReadAfterTheLinkNotificationsOverflowedAsksAgainAndIsRight() throws {
        // Given the gateway, read once, so the socket follows link notifications from now on
        let network = try TestNetwork()
        defer { network.remove() }
        let (backend, gateway) = try gatewayReadOnce(in: network)
        // When thousands of link notifications arrive while nobody reads, far more than the socket holds
        try network.flapLink("rn0", times: 1_500)
        let before = backend.synchronousExchangeCount
        let snapshot = try gateway.currentSnapshot()
        // Then the lost reply was asked for again, once: the queue was emptied first, so the second reply was not
        // dropped too (at most one more round trip follows, for the link the overflow made it forget)
        #expect((2...3).contains(backend.synchronousExchangeCount - before))
        // And the answer is the link as it is
        #expect(snapshot.flags == [.reachable, .isDirect])
        #expect(snapshot.path.interface?.name == "rn0")
    }

    @Test func aRouteThatMovedStillGetsItsOwnLink() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        let backend = LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name))
        let target = try NetworkReachability(
            target: .address(IPAddress("10.200.0.2")), backend: backend, logger: NetworkReachability.silentLogger)
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
        let backend = LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name))
        let linkLocal = try NetworkReachability(target: .linkLocal, backend: backend, logger: NetworkReachability.silentLogger)
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
        let backend = LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name))
        let make = { (text: String) throws in
            _ = try NetworkReachability(
                target: .address(IPAddress(text)), backend: backend, logger: NetworkReachability.silentLogger)
        }
        #expect(throws: Never.self) { try make("fe80::1%rn0") }
        #expect(throws: ReachabilityError.unknownZone("nope0")) { try make("fe80::1%nope0") }
        #expect(throws: ReachabilityError.unknownZone("999")) { try make("fe80::1%999") }
        let zoned = try NetworkReachability(
            target: .address(IPAddress("fe80::1%rn0")), backend: backend, logger: NetworkReachability.silentLogger)
        #expect(try zoned.currentSnapshot().path.interface?.name == "rn0")
    }
}
