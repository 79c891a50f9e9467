import Foundation
import NetworkReachabilityKit
import NetworkReachabilityTesting
import Testing

/// A VPN's tunnel on a simulated network: a `tun` interface whose split default shadows a modem's default route. The
/// path names the modem under the tunnel, and what costs (cellular, metered, roaming) and what a restriction refuses
/// are the modem's, for reads and listeners alike; a change of the modem's details reaches the tunnel's listeners.
struct VPNOnSimulatedNetworkTests {
    private static let lte: UInt32 = 1 << 14

    private func tunnelOverModem() throws -> SimulatedNetwork {
        let network = SimulatedNetwork()
        try network.addInterface("wwan0", type: .cellular, isPointToPoint: true)
        try network.addAddress("10.64.0.2/30", to: "wwan0")
        try network.addRoute(to: "default", interface: "wwan0")
        try network.addInterface("tun0", type: .other, isPointToPoint: true, linkKind: "tun")
        try network.addAddress("10.8.0.2/24", to: "tun0")
        try network.addRoute(to: "0.0.0.0/1", interface: "tun0")
        try network.addRoute(to: "128.0.0.0/1", interface: "tun0")
        return network
    }

    @Test func aTunnelOverAModemIsAsExpensiveRoamingAndCellularAsTheModem() throws {
        let network = try tunnelOverModem()
        try network.setDetails(LinkDetails(accessTechnologies: Self.lte, isRoaming: true), on: "wwan0")
        let snapshot = try NetworkReachability(network: network).currentSnapshot()
        #expect(snapshot.path.interface?.name == "tun0" && snapshot.path.isVPN)
        // The flags are the tunnel's own (the status contract reads the route's interface)...
        #expect(!snapshot.flags.contains(.isWWAN) && snapshot.status == .reachable(.ethernetOrWiFi))
        // ...and the costs and restrictions the modem's
        let under = try #require(snapshot.path.underlying.first)
        #expect(under.interface.name == "wwan0" && under.interface.type == .cellular && under.isExpensive)
        #expect(under.details?.radioTechnology == .lte4G)
        #expect(snapshot.path.isExpensive && snapshot.path.isRoaming)
        #expect(snapshot.path.usesInterfaceType(.cellular) && snapshot.path.usesInterfaceType(.other))
        #expect(!InterfaceRestriction.noCellular.allows(snapshot.path))
        #expect(InterfaceRestriction(requiredType: .cellular).allows(snapshot.path))
        let refused = try NetworkReachability(target: .restricted(.internet, .noCellular), network: network).currentSnapshot()
        #expect(refused.flags.isEmpty && refused.path.reason == .prohibitedInterfaceType)
        // A tunnel's own network's settings decide its cost over anything under it
        var tunnelled = snapshot
        tunnelled.path.network = NetworkIdentity(id: "00112233445566ff", ingredients: [], isMetered: false)
        #expect(!tunnelled.path.isExpensive)
        // The JSON names the VPN and the modem under it, and reads back the same
        let json = try JSONEncoder().encode(snapshot)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["vpn"] as? Bool == true && object["isExpensive"] as? Bool == true)
        let link = try #require((object["underlying"] as? [[String: Any]])?.first)
        #expect(link["isExpensive"] as? Bool == true && link["isRoaming"] as? Bool == true && link["radioTechnology"] != nil)
        #expect(try JSONDecoder().decode(ReachabilitySnapshot.self, from: json).path.underlying == snapshot.path.underlying)
    }

    @Test func withoutTheTunnelNothingIsUnderlyingAndAPathThatIsNoVPNsHasNeitherKey() throws {
        let network = try tunnelOverModem()
        try network.removeRoute(to: "0.0.0.0/1")
        try network.removeRoute(to: "128.0.0.0/1")
        let snapshot = try NetworkReachability(network: network).currentSnapshot()
        #expect(snapshot.path.interface?.name == "wwan0" && !snapshot.path.isVPN && snapshot.path.underlying.isEmpty)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(snapshot)) as? [String: Any])
        #expect(object["vpn"] == nil && object["underlying"] == nil)
        // A cellular link that is a tun (a user-space PPP daemon's) is the modem's own, not a VPN
        #expect(!NetworkInterface(name: "ppp0", index: 9, type: .cellular, linkKind: "tun").isVPN)
        #expect(NetworkInterface(name: "wg0", index: 9, type: .other, linkKind: "wireguard").isVPN)
        #expect(!NetworkInterface(name: "eth0", index: 9, type: .wiredEthernet, linkKind: "veth").isVPN)
    }

    @Test(.timeLimit(.minutes(1)))  // a sequence that misses a change would wait for it forever
    func aChangeOfTheModemsDetailsOrOfWhatCarriesTheTunnelReachesTheTunnelsListeners() async throws {
        let network = try tunnelOverModem()
        try network.addInterface("wlan0", type: .wifi)
        try network.addAddress("192.168.1.20/24", to: "wlan0")
        let reachability = try NetworkReachability(network: network)
        var updates = reachability.updates.makeAsyncIterator()
        let first = try #require(await updates.next())
        #expect(first.path.underlying.first?.interface.name == "wwan0" && !first.path.isRoaming)
        // When the modem starts roaming: heard by the tunnel's listener, with no change of route
        try network.setDetails(LinkDetails(accessTechnologies: Self.lte, isRoaming: true), on: "wwan0")
        let roaming = try #require(await updates.next())
        #expect(roaming.path.interface?.name == "tun0" && roaming.path.isRoaming)
        // When Wi-Fi takes the default the tunnel shadows: the tunnel is over Wi-Fi, not expensive
        try network.addDefaultRoute(via: "192.168.1.1", interface: "wlan0", metric: 5)
        try network.removeRoute(to: "default", metric: 0)
        var moved = try #require(await updates.next())
        if moved.path.underlying.first?.interface.name != "wlan0" { moved = try #require(await updates.next()) }
        #expect(moved.path.underlying.first?.interface.type == .wifi && !moved.path.isExpensive && !moved.path.isRoaming)
    }
}
