import Foundation
import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// Snapshots, paths and statuses encode as the JSON `reach --json` prints, and decode back to the same values.
struct CodableTests {
    private static let wired = NetworkInterface(name: "eth0", index: 2, type: .wiredEthernet, linkKind: "veth")

    private static var internet: ReachabilitySnapshot {
        var path = ReachabilityPath(
            interface: wired, gateway: try! IPAddress("2001:db8::1"), supportsIPv6: true,
            nat64Prefixes: [
                DiscoveredNAT64Prefix(
                    prefix: try! NAT64Prefix("64:ff9b::/96"), source: .routerAdvertisement, lifetime: .seconds(1800))
            ], advertisedDNSServers: [try! IPAddress("2001:db8::53")], captivePortal: "https://portal.example/api")
        path.isInternet = true
        return ReachabilitySnapshot(target: .internet, flags: .reachable, path: path)
    }

    private static var host: ReachabilitySnapshot {
        let resolution = HostResolution(
            name: "api.example.com", state: .resolved, addresses: [try! IPAddress("192.0.2.7")],
            chosenAddress: try! IPAddress("192.0.2.7"))
        return ReachabilitySnapshot(
            target: .host(try! HostName("api.example.com")), flags: [.reachable, .isWWAN],
            path: ReachabilityPath(
                interface: NetworkInterface(name: "wwan0", index: 5, type: .cellular), gateway: try! IPAddress("10.0.0.1"),
                supportsIPv4: true, host: resolution,
                details: LinkDetails(
                    accessTechnologies: 1 << 14, signal: SignalStrength(percent: 72, dBm: -85), isRoaming: true,
                    isMetered: true, systemConnectivity: .limited)))
    }

    private static var awaitingNAT64: ReachabilitySnapshot {
        var path = ReachabilityPath.none
        path.awaitsNAT64Discovery = true
        return ReachabilitySnapshot(target: .address(try! IPAddress("198.51.100.7")), flags: [], path: path)
    }

    private static var pair: ReachabilitySnapshot {
        ReachabilitySnapshot(
            target: .addressPair(local: try! IPAddress("192.0.2.2"), remote: try! IPAddress("192.0.2.1")),
            flags: [.reachable, .isDirect], path: ReachabilityPath(interface: wired, supportsIPv4: true))
    }

    @Test(arguments: [internet, host, awaitingNAT64, pair])
    func aSnapshotDecodesToItself(snapshot: ReachabilitySnapshot) throws {
        let data = try JSONEncoder().encode(snapshot)
        let decoded = try JSONDecoder().decode(ReachabilitySnapshot.self, from: data)
        #expect(decoded == snapshot)
        #expect(decoded.status == snapshot.status)
    }

    @Test func theInternetsSnapshotHasTheContractsKeys() throws {
        let object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.internet)) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "target", "status", "connection", "flags", "flagsString", "interface", "gateway", "supportsIPv4",
                "supportsIPv6", "isExpensive", "reason", "gateways", "availableInterfaces", "isIPv6Only", "nat64Prefixes",
                "advertisedDNSServers", "captivePortal", "supportsDNS", "network",
            ])
        #expect(object["status"] as? String == "reachable")
        #expect(object["connection"] as? String == "ethernetOrWiFi")
        #expect(object["flags"] as? [String] == ["reachable"])
        #expect(object["flagsString"] as? String == "-R -------")
        #expect((object["interface"] as? [String: Any])?["linkKind"] as? String == "veth")
        let prefix = try #require((object["nat64Prefixes"] as? [[String: Any]])?.first)
        #expect(prefix["prefix"] as? String == "64:ff9b::/96" && prefix["lifetime"] as? Int == 1800)
    }

    @Test func aModemsDetailsAreKeysOfThePath() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.host)) as? [String: Any])
        #expect(object["radioTechnology"] as? String == "lte4G")
        #expect(object["accessTechnologies"] as? Int == 1 << 14)
        #expect((object["signal"] as? [String: Any])?["percent"] as? Int == 72)
        #expect((object["signal"] as? [String: Any])?["dBm"] as? Double == -85)
        #expect(object["isRoaming"] as? Bool == true && object["isMetered"] as? Bool == true)
        #expect(object["systemConnectivity"] as? String == "limited")
        #expect(object["isExpensive"] as? Bool == true)
    }

    @Test func anInterfacesDetailsAreKeysOfItsObjectAndDecodeToThemselves() throws {
        let status = InterfaceStatus(
            interface: NetworkInterface(name: "wwan0", index: 4, type: .cellular), isUp: true, hasCarrier: true,
            operationalState: "up", addresses: ["10.64.0.2/30"], carriesInternet: true,
            details: LinkDetails(accessTechnologies: 1 << 15, signal: SignalStrength(percent: 55), isRoaming: false))
        let data = try JSONEncoder().encode(status)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["name"] as? String == "wwan0" && object["radioTechnology"] as? String == "nr5G")
        #expect(object["isRoaming"] as? Bool == false && object["isMetered"] == nil)
        #expect(try JSONDecoder().decode(InterfaceStatus.self, from: data) == status)
        // and without details, none of their keys, and nil again
        var bare = status
        bare.details = LinkDetails()
        #expect(bare.details == nil)
        let plain = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(bare)) as? [String: Any])
        #expect(plain["radioTechnology"] == nil && plain["signal"] == nil)
        #expect(try JSONDecoder().decode(InterfaceStatus.self, from: JSONEncoder().encode(bare)).details == nil)
    }

    @Test func aCellularStatusEncodesAsTheContractsWords() throws {
        let data = try JSONEncoder().encode(NetworkReachabilityStatus.reachable(.cellular))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["status"] as? String == "reachable" && object["connection"] as? String == "wwan")
        #expect(try JSONDecoder().decode(NetworkReachabilityStatus.self, from: data) == .reachable(.cellular))
    }

    @Test(arguments: [
        ReachabilityTarget.restricted(.internet, .noCellular),
        .restricted(
            .host(try! HostName("api.example.com")),
            InterfaceRestriction(requiredType: .wifi, prohibitedTypes: [.other, .cellular])),
        .addressPair(local: try! IPAddress("192.0.2.2"), remote: try! IPAddress("192.0.2.1")), .linkLocal,
    ])
    func aTargetDecodesFromItsDescription(target: ReachabilityTarget) throws {
        #expect(try JSONDecoder().decode(ReachabilityTarget.self, from: JSONEncoder().encode(target)) == target)
    }

    @Test func unknownWordsAreDecodingErrors() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ReachabilityFlags.self, from: Data(#"["reachable","isFast"]"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(NetworkReachabilityStatus.self, from: Data(#"{"status":"maybe"}"#.utf8))
        }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([IPAddress].self, from: Data(#"["1.2.3"]"#.utf8)) }
    }
}

/// Each reason's ordinal is its position among all reasons, which the shared unreachable paths are found by.
@Test func everyReasonsOrdinalIsItsPosition() {
    #expect(UnsatisfiedReason.allCases.map(\.ordinal) == Array(UnsatisfiedReason.allCases.indices))
}
