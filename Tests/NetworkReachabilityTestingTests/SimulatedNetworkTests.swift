import Dispatch
import NetworkReachabilityKit
import NetworkReachabilityTesting
import Testing
import TestSupport

/// The simulated network: what it answers, as the kernel would, and that every public API works on it with
/// changes delivered before the change returns (no sleeps, no polling in these tests).
struct SimulatedNetworkTests {
    /// A host with Wi-Fi `wlan0` (192.168.1.20/24, 2001:db8:1::20/64) and default routes through its router.
    private func wifiNetwork() throws -> SimulatedNetwork {
        let network = SimulatedNetwork()
        try network.addInterface("wlan0", type: .wifi)
        try network.addAddress("192.168.1.20/24", to: "wlan0")
        try network.addAddress("2001:db8:1::20/64", to: "wlan0")
        try network.addDefaultRoute(via: "192.168.1.1")
        try network.addDefaultRoute(via: "2001:db8:1::1")
        return network
    }

    private func address(_ text: String) throws -> IPAddress { try IPAddress(text) }

    /// An IPv6-only network whose DNS64 answers with the well-known prefix, and 198.51.100.7 listened to there
    /// until the DNS64 discovery its monitor started has ended; the caller stops listening.
    private func legacyAddressOnAnIPv6OnlyNetwork() throws -> (SimulatedNetwork, NetworkReachability) {
        let network = SimulatedNetwork()
        try network.addInterface("eth0")
        try network.addAddress("2001:db8:1::20/64", to: "eth0")
        try network.addDefaultRoute(via: "2001:db8:1::1")
        try network.setDNS64Prefixes(["64:ff9b::/96"])
        let legacy = try NetworkReachability(address: "198.51.100.7", network: network)
        legacy.startListening(onQueue: DispatchQueue(label: "listener")) { _ in }
        network.settle()
        return (network, legacy)
    }

    // MARK: - Answers

    @Test func theInternetIsReachableThroughTheDefaultRoutesGatewayAndInterface() throws {
        let network = try wifiNetwork()
        let snapshot = try NetworkReachability(network: network).currentSnapshot()
        #expect(snapshot.status == .reachable(.ethernetOrWiFi))
        #expect(snapshot.flags == .reachable)
        #expect(snapshot.path.interface?.name == "wlan0")
        #expect(snapshot.path.interface?.type == .wifi)
        #expect(snapshot.path.gateway == (try address("192.168.1.1")))
        #expect(snapshot.path.sourceAddress == (try address("192.168.1.20")))
        #expect(snapshot.path.supportsIPv4 && snapshot.path.supportsIPv6)
    }

    @Test func aNetworkWithOnlyLoopbackHasNoInternet() throws {
        let reachability = try NetworkReachability(network: SimulatedNetwork())
        #expect(reachability.status == .notReachable)
        #expect(reachability.flags == [])
    }

    @Test func aCellularDefaultRouteIsWWAN() throws {
        let network = SimulatedNetwork()
        try network.addInterface("wwan0", type: .cellular, isPointToPoint: true)
        try network.addAddress("10.64.0.2/30", to: "wwan0")
        try network.addRoute(to: "default", interface: "wwan0")
        let reachability = try NetworkReachability(network: network)
        #expect(reachability.status == .reachable(.cellular))
        #expect(reachability.flags == [.reachable, .isDirect, .isWWAN, .transientConnection])
        // An address's flags read, which does not describe the interface, still knows its kind
        let address = try NetworkReachability(address: "198.51.100.1", network: network)
        #expect(address.flags == [.reachable, .isDirect, .isWWAN, .transientConnection])
        #expect(try address.currentSnapshot().flags == address.flags)
    }

    @Test func pullingTheCableLeavesTheRouteButRequiresAConnection() throws {
        let network = try wifiNetwork()
        let reachability = try NetworkReachability(network: network)
        let router = try NetworkReachability(address: "192.168.1.1", network: network)
        try network.setCarrier(false, on: "wlan0")
        #expect(reachability.flags == [.reachable, .connectionRequired])
        #expect(reachability.status == .notReachable)
        #expect(router.flags == [.reachable, .isDirect, .connectionRequired])
        try network.setCarrier(true, on: "wlan0")
        #expect(reachability.status == .reachable(.ethernetOrWiFi))
    }

    @Test func aDormantLinkNeedsIntervention() throws {
        let network = try wifiNetwork()
        try network.setDormant(true, on: "wlan0")
        #expect(try NetworkReachability(network: network).flags == [.reachable, .connectionRequired, .interventionRequired])
        #expect(
            try NetworkReachability(address: "192.168.1.1", network: network).flags == [
                .reachable, .isDirect, .connectionRequired, .interventionRequired,
            ])
    }

    @Test func takingALinkDownLosesItsRoutesAndBringingItUpRestoresOnlyItsPrefixes() throws {
        let network = try wifiNetwork()
        let internet = try NetworkReachability(network: network)
        let router = try NetworkReachability(address: "192.168.1.1", network: network)
        try network.setInterface("wlan0", up: false)
        #expect(internet.status == .notReachable)
        #expect(router.status == .notReachable)
        try network.setInterface("wlan0", up: true)
        #expect(router.flags == [.reachable, .isDirect])
        #expect(internet.status == .notReachable)  // as on Linux: the default route is gone for good
    }

    @Test func addressesFollowTheLongestPrefixAndRejectingRoutes() throws {
        let network = try wifiNetwork()
        try network.addInterface("tun0", type: .other, isPointToPoint: true)
        try network.addAddress("10.8.0.2/24", to: "tun0")
        try network.addRoute(to: "10.0.0.0/8", via: "10.8.0.1")
        try network.addRoute(rejecting: "10.9.0.0/16", as: .prohibit)
        let vpn = try NetworkReachability(address: "10.1.2.3", network: network).currentSnapshot()
        #expect(vpn.path.interface?.name == "tun0")
        #expect(vpn.flags == [.reachable, .transientConnection])
        #expect(try NetworkReachability(address: "10.9.1.1", network: network).flags == [])
        #expect(try NetworkReachability(address: "192.168.1.7", network: network).flags == [.reachable, .isDirect])
        #expect(
            try NetworkReachability(address: "192.168.1.20", network: network).flags == [.reachable, .isLocalAddress, .isDirect])
    }

    @Test func aLowerMetricWinsAmongRoutesOfTheSameLength() throws {
        let network = try wifiNetwork()
        try network.addInterface("eth0")
        try network.addAddress("192.0.2.2/24", to: "eth0")
        try network.addRoute(to: "198.51.100.0/24", via: "192.0.2.1", metric: 100)
        try network.addRoute(to: "198.51.100.0/24", via: "192.168.1.1", metric: 600)
        let target = try NetworkReachability(address: "198.51.100.9", network: network)
        #expect(try target.currentSnapshot().path.interface?.name == "eth0")
        try network.removeRoute(to: "198.51.100.0/24", metric: 100)
        #expect(try target.currentSnapshot().path.interface?.name == "wlan0")
    }

    @Test func anIPv6OnlyNetworkReachesIPv4AddressesThroughDNS64sPrefix() throws {
        let (_, legacy) = try legacyAddressOnAnIPv6OnlyNetwork()
        defer { legacy.stopListening() }
        let snapshot = try legacy.currentSnapshot()
        #expect(snapshot.status == .reachable(.ethernetOrWiFi))
        #expect(snapshot.path.synthesizedAddress == (try address("64:ff9b::c633:6407")))
        // A read after an unrouted one asks the internet's routes in the same request: the same answer
        #expect(try legacy.currentSnapshot() == snapshot)
        // And a flags read, which describes no path, goes through NAT64 too: as the first read of a network (the
        // internet's routes asked after the address's own), then with them asked along
        let (_, fresh) = try legacyAddressOnAnIPv6OnlyNetwork()
        defer { fresh.stopListening() }
        #expect(fresh.flags == snapshot.flags)
        #expect(fresh.flags == snapshot.flags)
    }

    @Test func readsAfterAnUnroutedOneFollowTheNetworkAsItIsNow() throws {
        // Given an IPv6-only network with DNS64, and an IPv4 address read through NAT64 (no route of its own)
        let (network, legacy) = try legacyAddressOnAnIPv6OnlyNetwork()
        defer { legacy.stopListening() }
        #expect(try legacy.currentSnapshot().path.synthesizedAddress != nil)
        // When the network gains IPv4, then the next read (probes asked along) takes the IPv4 route, not NAT64
        try network.addAddress("192.0.2.2/24", to: "eth0")
        try network.addDefaultRoute(via: "192.0.2.1")
        let direct = try legacy.currentSnapshot()
        #expect(direct.status == .reachable(.ethernetOrWiFi))
        #expect(direct.path.synthesizedAddress == nil)
        #expect(direct.path.gateway == (try address("192.0.2.1")))
        #expect(legacy.flags == direct.flags)
        // And when no default route is left, it is not reachable
        network.removeDefaultRoutes()
        #expect(try legacy.currentSnapshot().flags == [])
        #expect(legacy.flags == [])
    }

    @Test func anUnroutedReadFindsNAT64WhenTheIPv4InternetGoesAwayBetweenReads() throws {
        // Given an IPv6-only network with DNS64 that also has IPv4, where a rejecting route covers the address: read
        // twice, so the next read asks only the IPv4 internet's route along (NAT64 plays no part beside it)
        let (network, legacy) = try legacyAddressOnAnIPv6OnlyNetwork()
        defer { legacy.stopListening() }
        try network.addAddress("192.0.2.2/24", to: "eth0")
        try network.addDefaultRoute(via: "192.0.2.1")
        try network.addRoute(rejecting: "198.51.100.0/24", as: .prohibit)
        #expect(legacy.flags == [])
        #expect(legacy.flags == [])
        // When the IPv4 internet goes away
        try network.removeRoute(to: "default")
        // Then the next read asks the IPv6 internet's route too, and goes through NAT64
        #expect(legacy.flags == [.reachable])
        #expect(try legacy.currentSnapshot().path.synthesizedAddress == (try address("64:ff9b::c633:6407")))
    }

    // MARK: - Host names

    @Test func aHostIsUnknownFirstThenFollowsItsResolution() throws {
        let network = try wifiNetwork()
        try network.setAddresses(["203.0.113.5"], forHost: "api.example.com")
        let api = try NetworkReachability(host: "api.example.com", network: network)
        let statuses = Recorder<NetworkReachabilityStatus>()
        let queue = DispatchQueue(label: "listener")
        api.startListening(onQueue: queue) { statuses.append($0) }
        network.settle()
        queue.sync {}
        #expect(statuses.values == [.unknown, .reachable(.ethernetOrWiFi)])
        try network.setResolutionFailure(forHost: "api.example.com")
        queue.sync {}
        #expect(statuses.values.last == .notReachable)
        #expect(try api.currentSnapshot().path.host?.failure == "Temporary failure in name resolution")
    }

    /// The simulated network's resolver answers at once, so a read's first answer for a host is its resolution, as a
    /// second read's is; a listener still hears `unknown` first, as on a real resolver.
    @Test func aHostsFirstReadIsItsResolution() throws {
        let network = try wifiNetwork()
        try network.setAddresses(["203.0.113.5"], forHost: "api.example.com")
        try network.setResolutionFailure(forHost: "gone.example.com")
        network.settle()
        #expect(try NetworkReachability(host: "api.example.com", network: network).status == .reachable(.ethernetOrWiFi))
        let gone = try NetworkReachability(host: "gone.example.com", network: network).currentSnapshot()
        #expect(gone.status == .notReachable && gone.path.host?.state == .failed)
    }

    // MARK: - Every way of listening

    @Test func aListenerHearsTheFirstStatusAndEachChangeBeforeTheChangeReturns() throws {
        let network = try wifiNetwork()
        let reachability = try NetworkReachability(network: network)
        let statuses = Recorder<NetworkReachabilityStatus>()
        let queue = DispatchQueue(label: "listener")
        reachability.startListening(onQueue: queue) { statuses.append($0) }
        network.settle()
        queue.sync {}
        #expect(statuses.values == [.reachable(.ethernetOrWiFi)])
        network.removeDefaultRoutes()
        queue.sync {}
        #expect(statuses.values == [.reachable(.ethernetOrWiFi), .notReachable])
        try network.addDefaultRoute(via: "192.168.1.1")
        queue.sync {}
        #expect(statuses.values == [.reachable(.ethernetOrWiFi), .notReachable, .reachable(.ethernetOrWiFi)])
        reachability.stopListening()
    }

    @Test func objectsSharingQueuesEachHearEveryChangeInOrder() throws {
        let network = try wifiNetwork()
        let queues = [DispatchQueue(label: "first"), DispatchQueue(label: "second")]
        let heard = (0..<40).map { _ in Recorder<NetworkReachabilityStatus>() }
        let objects = try (0..<40).map { index in
            let reachability = try NetworkReachability(address: "198.51.100.\(index + 1)", network: network)
            reachability.startListening(onQueue: queues[index % 2]) { heard[index].append($0) }
            return reachability
        }
        network.settle()
        network.removeDefaultRoutes()
        try network.addDefaultRoute(via: "192.168.1.1")
        for queue in queues { queue.sync {} }
        let expected: [NetworkReachabilityStatus] = [.reachable(.ethernetOrWiFi), .notReachable, .reachable(.ethernetOrWiFi)]
        #expect(heard.allSatisfy { $0.values == expected })
        for reachability in objects { reachability.stopListening() }
    }

    @Test func anObjectStoppedByAnEarlierDeliveryOfTheSamePassHearsNothingMore() throws {
        let network = try wifiNetwork()
        let queue = DispatchQueue(label: "listener")
        let first = try NetworkReachability(address: "198.51.100.1", network: network)
        let second = try NetworkReachability(address: "198.51.100.2", network: network)
        let heard = Recorder<String>()
        // Whichever hears the loss first stops the other, whose delivery is already in the same block.
        first.startListening(onQueue: queue) { [second] status in
            heard.append("first \(status)")
            if status == .notReachable { second.stopListening() }
        }
        second.startListening(onQueue: queue) { [first] status in
            heard.append("second \(status)")
            if status == .notReachable { first.stopListening() }
        }
        network.settle()
        queue.sync {}
        #expect(heard.values.count == 2)
        network.removeDefaultRoutes()
        queue.sync {}
        #expect(heard.values.count == 3)
        #expect(heard.values.last?.hasSuffix("notReachable") == true)
        first.stopListening()
        second.stopListening()
    }

    @Test func updatesHaveEachSnapshotBufferedWhenTheChangeReturns() async throws {
        let network = try wifiNetwork()
        let reachability = try NetworkReachability(network: network)
        var updates = reachability.updates.makeAsyncIterator()
        #expect(await updates.next()?.status == .reachable(.ethernetOrWiFi))
        try network.setCarrier(false, on: "wlan0")
        #expect(await updates.next()?.flags == [.reachable, .connectionRequired])
    }

    @Test(.timeLimit(.minutes(1)))  // a sequence that misses a change would wait for it forever
    func oneObjectsUpdatesAndItsListenerBothHearEachChange() async throws {
        // One object, two consumers of its one registration: each hears every change, not only the first added.
        let network = try wifiNetwork()
        let reachability = try NetworkReachability(network: network)
        var updates = reachability.updates.makeAsyncIterator()
        let statuses = Recorder<NetworkReachabilityStatus>()
        let queue = DispatchQueue(label: "listener")
        reachability.startListening(onQueue: queue) { statuses.append($0) }
        #expect(await updates.next()?.status == .reachable(.ethernetOrWiFi))
        network.removeDefaultRoutes()
        #expect(await updates.next()?.status == .notReachable)
        queue.sync {}
        #expect(statuses.values == [.reachable(.ethernetOrWiFi), .notReachable])
        reachability.stopListening()
    }

    @Test func eachConsumerHearsWhatChangedUnderItsOwnRuleAndALateOneStartsFromTheLatest() throws {
        // The monitor keeps one latest snapshot per target; its consumers keep none, so this checks they still tell
        // what is new.
        let network = SimulatedNetwork()
        try network.addInterface("wlan0", type: .wifi)
        try network.addAddress("192.168.1.20/24", to: "wlan0")
        try network.addDefaultRoute(via: "192.168.1.1", metric: 100)
        let reachability = try NetworkReachability(network: network)
        let flags = Recorder<ReachabilityFlags>()
        let paths = Recorder<String>()
        let late = Recorder<String>()
        let first = try reachability.addConsumer(rule: .flags, deliver: { flags.append($0.flags) })
        let second = try reachability.addConsumer(
            rule: .snapshot, deliver: { paths.append("\($0.path.gateway.map { "\($0)" } ?? "none")") })
        network.settle()
        try network.addDefaultRoute(via: "192.168.1.254", metric: 10)  // the path changes, the flags do not
        let lateFlags = Recorder<ReachabilityFlags>()
        let third = try reachability.addConsumer(
            rule: .snapshot, deliver: { late.append("\($0.path.gateway.map { "\($0)" } ?? "none")") })
        let fourth = try reachability.addConsumer(rule: .flags, deliver: { lateFlags.append($0.flags) })
        try network.addDefaultRoute(via: "192.168.1.252", metric: 5)
        network.removeDefaultRoutes()
        #expect(flags.values == [[.reachable], []])
        #expect(paths.values == ["192.168.1.1", "192.168.1.254", "192.168.1.252", "none"])
        #expect(late.values == ["192.168.1.254", "192.168.1.252", "none"])
        #expect(lateFlags.values == [[.reachable], []])
        for consumer in [first, second, third, fourth] { reachability.removeConsumer(consumer) }
    }

    @Test func aWaitReturnsTheStatusThatSatisfiedIt() async throws {
        let network = SimulatedNetwork()
        try network.addInterface("eth0")
        try network.addAddress("192.0.2.2/24", to: "eth0")
        let reachability = try NetworkReachability(network: network)
        let wait = Task { try await reachability.waitUntilReachable(timeout: .seconds(30)) }
        try network.addDefaultRoute(via: "192.0.2.1")
        #expect(try await wait.value == .reachable(.ethernetOrWiFi))
    }

    @Test func aWorkQueueRunsItsJobWhenTheNetworkComesBack() async throws {
        let network = SimulatedNetwork()
        try network.addInterface("eth0")
        try network.addAddress("192.0.2.2/24", to: "eth0")
        let queue = try ReachabilityWorkQueue(reachability: NetworkReachability(network: network))
        let ran = Recorder<String>()
        let job = queue.submit { ran.append("sent") }
        network.settle()
        #expect(ran.values.isEmpty)
        try network.addDefaultRoute(via: "192.0.2.1")
        #expect(await job.outcome.isSuccess)
        #expect(ran.values == ["sent"])
    }

    // MARK: - Refusals

    @Test func mistakesAreRefusedWithTypedErrors() throws {
        let network = try wifiNetwork()
        #expect(throws: SimulatedNetworkError.interfaceExists("wlan0")) { try network.addInterface("wlan0") }
        #expect(throws: SimulatedNetworkError.invalidInterfaceName("a-name-longer-than-15")) {
            try network.addInterface("a-name-longer-than-15")
        }
        #expect(throws: SimulatedNetworkError.unknownInterface("eth9")) { try network.setCarrier(false, on: "eth9") }
        #expect(throws: SimulatedNetworkError.invalidPrefixLength("10.0.0.1/33")) {
            try network.addAddress("10.0.0.1/33", to: "wlan0")
        }
        #expect(throws: SimulatedNetworkError.unreachableGateway("10.0.0.1")) {
            try network.addRoute(to: "10.0.0.0/8", via: "10.0.0.1")
        }
        #expect(throws: SimulatedNetworkError.familyMismatch(destination: "10.0.0.0/8", gateway: "2001:db8:1::1")) {
            try network.addRoute(to: "10.0.0.0/8", via: "2001:db8:1::1")
        }
        #expect(throws: SimulatedNetworkError.missingNextHop("10.0.0.0/8")) { try network.addRoute(to: "10.0.0.0/8") }
        #expect(throws: SimulatedNetworkError.noSuchRoute("172.16.0.0/12")) { try network.removeRoute(to: "172.16.0.0/12") }
        #expect(throws: SimulatedNetworkError.noSuchAddress("192.0.2.9", interface: "wlan0")) {
            try network.removeAddress("192.0.2.9", from: "wlan0")
        }
        #expect(throws: SimulatedNetworkError.self) { try network.addAddress("not an address", to: "wlan0") }
        #expect(throws: SimulatedNetworkError.self) { try network.setAddresses([], forHost: "bad host name") }
        try network.setInterface("wlan0", up: false)
        #expect(throws: SimulatedNetworkError.interfaceDown("wlan0")) {
            try network.addRoute(to: "10.0.0.0/8", interface: "wlan0")
        }
    }
}
