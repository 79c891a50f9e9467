import NetworkReachabilityKit
import NetworkReachabilityTesting
import Testing

/// A simulated network's link details: what `NetworkReachabilityRadio` reads from ModemManager and NetworkManager
/// on a real host, set by hand and delivered as a path change.
struct LinkDetailsOnSimulatedNetworkTests {
    private static let lte: UInt32 = 1 << 14
    private static let nr: UInt32 = 1 << 15
    private static let hspa: UInt32 = 1 << 8

    private func cellularNetwork() throws -> SimulatedNetwork {
        let network = SimulatedNetwork()
        try network.addInterface("wwan0", type: .cellular, isPointToPoint: true)
        try network.addAddress("10.64.0.2/30", to: "wwan0")
        try network.addRoute(to: "default", interface: "wwan0")
        return network
    }

    @Test(.timeLimit(.minutes(1)))  // a sequence that misses a change would wait for it forever
    func eachChangeOfTechnologyIsHeardOnceAndASignalWiggleNotAtAll() async throws {
        // Given a modem on LTE at 72 %, listened to
        let network = try cellularNetwork()
        try network.setDetails(LinkDetails(accessTechnologies: Self.lte, signal: SignalStrength(percent: 72)), on: "wwan0")
        let reachability = try NetworkReachability(network: network)
        var updates = reachability.updates.makeAsyncIterator()
        let first = try #require(await updates.next())
        #expect(first.path.details?.radioTechnology == .lte4G && first.path.details?.signal?.percent == 72)

        // When it moves to 5G NR beside LTE, then to HSPA, each is heard
        try network.setDetails(
            LinkDetails(accessTechnologies: Self.lte | Self.nr, signal: SignalStrength(percent: 72)), on: "wwan0")
        #expect(await updates.next()?.path.details?.radioTechnology == .nr5G)
        try network.setDetails(LinkDetails(accessTechnologies: Self.hspa, signal: SignalStrength(percent: 72)), on: "wwan0")
        #expect(await updates.next()?.path.details?.radioTechnology == .umts3G)

        // And a 1 % wiggle is not, while roaming is, with the signal as delivered before
        try network.setDetails(LinkDetails(accessTechnologies: Self.hspa, signal: SignalStrength(percent: 71)), on: "wwan0")
        try network.setDetails(
            LinkDetails(accessTechnologies: Self.hspa, signal: SignalStrength(percent: 73), isRoaming: true), on: "wwan0")
        let roaming = try #require(await updates.next())
        #expect(roaming.path.details?.isRoaming == true && roaming.path.details?.signal?.percent == 72)

        // And a step to another band is heard with its reading
        try network.setDetails(
            LinkDetails(accessTechnologies: Self.hspa, signal: SignalStrength(percent: 35), isRoaming: true), on: "wwan0")
        #expect(await updates.next()?.path.details?.signal?.percent == 35)
        #expect(try reachability.currentSnapshot().path.details?.signal?.percent == 35)
    }

    /// A radio change gives the targets' last paths their new details: no target is evaluated again for it.
    @Test(.timeLimit(.minutes(1)))
    func aChangeOfDetailsIsHeardWithoutEvaluatingAnyTargetAgain() async throws {
        let network = try cellularNetwork()
        try network.setDetails(LinkDetails(accessTechnologies: Self.lte), on: "wwan0")
        let internet = try NetworkReachability(network: network)
        let gateway = try NetworkReachability(address: "10.64.0.1", network: network)
        var updates = internet.updates.makeAsyncIterator()
        var gatewayUpdates = gateway.updates.makeAsyncIterator()
        _ = await updates.next()
        _ = await gatewayUpdates.next()
        let evaluations = internet.monitorStatistics.targetEvaluations
        #expect(evaluations == 2)

        try network.setDetails(LinkDetails(accessTechnologies: Self.nr), on: "wwan0")
        #expect(await updates.next()?.path.details?.radioTechnology == .nr5G)
        #expect(await gatewayUpdates.next()?.path.details?.radioTechnology == .nr5G)
        #expect(internet.monitorStatistics.targetEvaluations == evaluations)
    }

    @Test func aMeteredLinkIsExpensiveAndAnUnknownInterfaceIsAnError() throws {
        let network = SimulatedNetwork()
        try network.addInterface("eth0")
        try network.addAddress("192.168.1.20/24", to: "eth0")
        try network.addDefaultRoute(via: "192.168.1.1")
        let reachability = try NetworkReachability(network: network)
        #expect(try reachability.currentSnapshot().path.isExpensive == false)
        try network.setDetails(LinkDetails(isMetered: true), on: "eth0")
        #expect(try reachability.currentSnapshot().path.isExpensive == true)
        try network.setDetails(nil, on: "eth0")
        #expect(try reachability.currentSnapshot().path.details == nil)
        #expect(throws: SimulatedNetworkError.unknownInterface("wlan9")) {
            try network.setDetails(LinkDetails(isMetered: true), on: "wlan9")
        }
    }
}
