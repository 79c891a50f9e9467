import NetworkReachabilityKit
import NetworkReachabilityTesting
import Testing

/// A simulated network's stated identity: what a real host reads from its gateway, set by hand, and heard by
/// `updates` as a change even when the status stays the same.
struct NetworkIdentityOnSimulatedNetworkTests {
    @Test(.timeLimit(.minutes(1)))
    func movingToAnotherWiFiIsHeardWhileTheStatusStaysTheSame() async throws {
        let network = SimulatedNetwork()
        try network.addInterface("wlan0", type: .wifi)
        try network.addAddress("192.168.1.20/24", to: "wlan0")
        try network.addDefaultRoute(via: "192.168.1.1")
        let home = NetworkIdentity(id: "a3f9c2d18e0b4711", label: "home", ingredients: [.gatewayMAC])
        try network.setNetwork(home, on: "wlan0")
        let reachability = try NetworkReachability(network: network)
        var updates = reachability.updates.makeAsyncIterator()
        #expect(await updates.next()?.path.network == home)

        // The café's router hands out the same addresses: only the identity tells
        let cafe = NetworkIdentity(id: "7c21e0a94b3d5f86", ingredients: [.gatewayMAC])
        try network.setNetwork(cafe, on: "wlan0")
        let moved = try #require(await updates.next())
        #expect(moved.path.network == cafe && moved.status == .reachable(.ethernetOrWiFi))
        #expect(moved.path.gateway == (try IPAddress("192.168.1.1")))
        #expect(try reachability.currentSnapshot().path.network?.summary == "7c21…")
        #expect(home.summary == "home (a3f9…)")
        #expect(throws: SimulatedNetworkError.self) { try network.setNetwork(nil, on: "eth9") }
    }
}
