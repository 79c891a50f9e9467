import NetworkReachabilityKit
import NetworkReachabilityTesting
import Testing

/// A simulated network's stated link quality: what the kernel's reader measures on a real host, set by hand, seen
/// only by objects that measure quality, and heard as a change of class.
struct QualityOnSimulatedNetworkTests {
    private func wifiNetwork() throws -> SimulatedNetwork {
        let network = SimulatedNetwork()
        try network.addInterface("wlan0", type: .wifi)
        try network.addAddress("192.168.1.20/24", to: "wlan0")
        try network.addDefaultRoute(via: "192.168.1.1")
        return network
    }

    private static func quality(_ type: EffectiveConnectionType, rtt: Int) -> LinkQuality {
        LinkQuality(effectiveType: type, rtt: .milliseconds(rtt), downlinkKbps: 600, sampleCount: 12)
    }

    @Test(.timeLimit(.minutes(1)))
    func anAppThatMeasuresQualityHearsEachChangeOfClassAndOneThatDoesNotHearsNothing() async throws {
        let network = try wifiNetwork()
        let adapting = try NetworkReachability(network: network)
        adapting.measuresQuality = true
        let plain = try NetworkReachability(network: network)
        var updates = adapting.updates.makeAsyncIterator()
        var plainUpdates = plain.updates.makeAsyncIterator()
        #expect(await updates.next()?.path.quality == .unmeasured)
        #expect(await plainUpdates.next()?.path.quality == nil)

        // A satellite hop: 2g-like
        try network.setQuality(Self.quality(.type2G, rtt: 1_600), on: "wlan0")
        let slow = try #require(await updates.next())
        #expect(slow.path.quality?.effectiveType == .type2G && slow.path.quality?.rtt == .milliseconds(1_600))
        #expect(slow.status == .reachable(.ethernetOrWiFi))

        // New figures in the same class are not a change; a new class is
        try network.setQuality(Self.quality(.type2G, rtt: 1_500), on: "wlan0")
        try network.setQuality(Self.quality(.type4G, rtt: 40), on: "wlan0")
        #expect(await updates.next()?.path.quality?.effectiveType == .type4G)
        #expect(try adapting.currentSnapshot().path.quality?.rtt == .milliseconds(40))

        // The object that never asked saw none of it: its next change is the route's, without quality
        network.removeDefaultRoutes()
        let gone = try #require(await plainUpdates.next())
        #expect(gone.status == .notReachable && gone.path.quality == nil)
        #expect(try plain.currentSnapshot().path.quality == nil)
    }

    @Test(.timeLimit(.minutes(1)))
    func aWaitForQualityEndsWhenTheLinkIsGoodEnough() async throws {
        let network = try wifiNetwork()
        try network.setQuality(Self.quality(.type2G, rtt: 1_600), on: "wlan0")
        let reachability = try NetworkReachability(network: network)
        async let waited = reachability.waitUntilQuality(atLeast: .type3G, timeout: .seconds(30))
        try network.setQuality(Self.quality(.type3G, rtt: 400), on: "wlan0")
        let snapshot = try await waited
        #expect(snapshot.path.quality?.effectiveType == .type3G)
        await #expect(throws: ReachabilityError.self) {
            try await reachability.waitUntilQuality(atLeast: .type4G, timeout: .milliseconds(200))
        }
    }
}
