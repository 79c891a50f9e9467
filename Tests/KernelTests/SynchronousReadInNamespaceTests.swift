import Testing
import TestSupport

@testable import NetworkReachability

/// Reading the state once, through the library, against the real kernel in a namespace.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"))
struct SynchronousReadInNamespaceTests {
    @Test func readingAnAddressAgainCostsOneKernelRoundTrip() throws {
        // Given a reachability object for the on-link gateway, read once (the route's link is learned)
        let network = try TestNetwork()
        defer { network.remove() }
        let backend = LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name))
        let gateway = try NetworkReachability(
            target: .address(IPAddress(TestNetwork.gatewayIPv4)), backend: backend, logger: NetworkReachability.silentLogger)
        #expect(try gateway.currentSnapshot().flags == [.reachable, .isDirect])
        // When it is read again
        let before = backend.synchronousExchangeCount
        let snapshot = try gateway.currentSnapshot()
        // Then route and link came back from one sendmsg, and the answer is complete
        #expect(backend.synchronousExchangeCount - before == 1)
        #expect(snapshot.flags == [.reachable, .isDirect])
        #expect(snapshot.path.interface?.name == "rn0")
        #expect(snapshot.path.interface?.linkKind == "veth")
        #expect(snapshot.path.sourceAddress?.description == TestNetwork.hostIPv4)
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
