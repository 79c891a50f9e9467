import Dispatch
import Foundation
import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// A host target read and listened to through the library, on this machine's own resolver (`localhost` is
/// in every /etc/hosts): reads never wait for resolution.
@Suite(.ownThread)
struct HostReadingTests {
    @Test func firstReadIsUnknownAtOnceThenListenersHearTheResolvedState() throws {
        let reachability = try NetworkReachability(host: "localhost", resolutionTimeout: .seconds(2))
        // The first read answers from the resolution it has just started: pending (unknown), unless the resolver's
        // thread already answered from /etc/hosts (seen under load, and when another test resolved localhost first)
        #expect([.unknown, .reachable(.ethernetOrWiFi)].contains(reachability.status))
        let snapshot = try reachability.currentSnapshot()
        #expect([HostResolution.State.pending, .resolved].contains(snapshot.path.host?.state))
        // A listener hears unknown, then the real state: localhost leaves through lo
        let statuses = Recorder<NetworkReachabilityStatus>()
        reachability.startListening(onQueue: DispatchQueue(label: "host")) { statuses.append($0) }
        #expect(eventually { statuses.values.last == .reachable(.ethernetOrWiFi) })
        #expect(reachability.status == .reachable(.ethernetOrWiFi))
        #expect(try reachability.currentSnapshot().path.interface?.type == .loopback)
        reachability.stopListening()
    }

    @Test func ipLiteralGivenAsAHostIsAnAddressTarget() throws {
        #expect(try NetworkReachability(host: "127.0.0.1").target == .address(IPAddress("127.0.0.1")))
        #expect(throws: ReachabilityError.self) { try NetworkReachability(host: "bad..name") }
        #expect(throws: ReachabilityError.self) { try NetworkReachability(host: "") }
    }
}
