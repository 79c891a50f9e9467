import CNetlink
import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// The pure rule from a kernel route and its output link to flags (SEMANTICS.md, "Flags").
struct EvaluationRuleTests {
    private func route(type: UInt8, gateway: [UInt8]? = nil) throws -> Route {
        var header: [UInt8] = [UInt8(AF_INET), 32, 0, 0, 254, 4, 0, type]
        header.appendNative(UInt32(0))
        var request = NetlinkRequest(type: UInt16(RTM_NEWROUTE), sequence: 1, familyHeader: header)
        request.appendAttribute(UInt16(RTA_OIF.rawValue), uint32: 2)
        if let gateway { request.appendAttribute(UInt16(RTA_GATEWAY.rawValue), gateway) }
        return try #require(Route(NetlinkMessage.split(request.encoded[...]).messages[0]))
    }

    private func link(flags: UInt32 = cnl_iff_up() | cnl_iff_lower_up(), state: UInt8 = cnl_if_oper_up()) -> Link {
        Link(index: 2, name: "eth0", hardwareType: UInt16(ARPHRD_ETHER), flags: flags, operationalState: state, kind: nil)
    }

    @Test func unicastBehindAGatewayIsReachableOnly() throws {
        let flags = TargetEvaluator.flags(
            route: try route(type: UInt8(RTN_UNICAST), gateway: [192, 0, 2, 1]).path, link: link(), interfaceType: .wiredEthernet)
        #expect(flags == .reachable)
    }

    @Test func unicastOnLinkIsDirect() throws {
        let flags = TargetEvaluator.flags(
            route: try route(type: UInt8(RTN_UNICAST)).path, link: link(), interfaceType: .wiredEthernet)
        #expect(flags == [.reachable, .isDirect])
    }

    @Test(arguments: [RTN_BLACKHOLE, RTN_UNREACHABLE, RTN_PROHIBIT, RTN_THROW, RTN_NAT, RTN_XRESOLVE])
    func rejectingRoutesGiveNoFlags(type: Int) throws {
        #expect(
            TargetEvaluator.flags(route: try route(type: UInt8(type)).path, link: link(), interfaceType: .wiredEthernet) == [])
    }

    /// `ip route get 255.255.255.255` says `broadcast … dev eth0`: the packet leaves, on-link.
    @Test(arguments: [RTN_BROADCAST, RTN_MULTICAST, RTN_ANYCAST])
    func broadcastMulticastAndAnycastLeaveOnLink(type: Int) throws {
        let flags = TargetEvaluator.flags(route: try route(type: UInt8(type)).path, link: link(), interfaceType: .wiredEthernet)
        #expect(flags == [.reachable, .isDirect])
    }

    @Test func linkWithoutCarrierRequiresAConnectionAndDormantAlsoIntervention() throws {
        let unicast = try route(type: UInt8(RTN_UNICAST), gateway: [192, 0, 2, 1])
        let noCarrier = link(flags: cnl_iff_up(), state: 2 /* IF_OPER_DOWN */)
        #expect(
            TargetEvaluator.flags(route: unicast.path, link: noCarrier, interfaceType: .wiredEthernet) == [
                .reachable, .connectionRequired,
            ])
        let dormant = link(state: cnl_if_oper_dormant())
        #expect(
            TargetEvaluator.flags(route: unicast.path, link: dormant, interfaceType: .wifi)
                == [.reachable, .connectionRequired, .interventionRequired])
        let lowerLayerDown = link(state: 3 /* IF_OPER_LOWERLAYERDOWN */)
        #expect(
            TargetEvaluator.flags(route: unicast.path, link: lowerLayerDown, interfaceType: .wiredEthernet).contains(
                .connectionRequired))
        let unknownState = link(state: cnl_if_oper_unknown())
        #expect(TargetEvaluator.flags(route: unicast.path, link: unknownState, interfaceType: .wiredEthernet) == .reachable)
    }

    @Test func pointToPointIsTransientAndCellularIsWWAN() throws {
        let unicast = try route(type: UInt8(RTN_UNICAST))
        let tunnel = link(flags: cnl_iff_up() | cnl_iff_lower_up() | cnl_iff_pointopoint(), state: cnl_if_oper_unknown())
        #expect(
            TargetEvaluator.flags(route: unicast.path, link: tunnel, interfaceType: .other) == [
                .reachable, .isDirect, .transientConnection,
            ])
        #expect(
            TargetEvaluator.flags(route: unicast.path, link: link(), interfaceType: .cellular) == [
                .reachable, .isDirect, .isWWAN,
            ])
        #expect(
            NetworkReachabilityStatus(TargetEvaluator.flags(route: unicast.path, link: link(), interfaceType: .cellular))
                == .reachable(.cellular))
    }
}
