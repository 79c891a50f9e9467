import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// Parsing of captured kernel bytes, and of truncated and lying ones, which must never trap.
struct NetlinkParsingTests {
    private func only(_ bytes: [UInt8]) throws -> NetlinkMessage {
        let (messages, malformed) = NetlinkMessage.split(bytes[...])
        #expect(malformed == 0)
        return try #require(messages.first)
    }

    @Test func routeReplyForLoopbackIsALocalRouteThroughLo() throws {
        let route = try #require(Route(try only(CapturedMessages.routeToLoopback)))
        #expect(route.type == .local)
        #expect(route.outputInterface == 1)
        #expect(route.destination?.description == "127.0.0.1")
        #expect(route.preferredSource?.description == "127.0.0.1")
        #expect(route.gateway == nil)
        #expect(route.table == UInt32(RT_TABLE_MAIN.rawValue))  // lookup replies name main even for local routes
        let loopback = Link(
            index: 1, name: "lo", hardwareType: UInt16(ARPHRD_LOOPBACK),
            flags: cnl_iff_up() | cnl_iff_lower_up() | cnl_iff_loopback(),
            operationalState: cnl_if_oper_unknown(), kind: nil)
        #expect(
            TargetEvaluator.flags(route: route.path, link: loopback, interfaceType: .loopback) == [
                .reachable, .isLocalAddress, .isDirect,
            ])
    }

    @Test func errorReplyCarriesTheNegativeErrno() throws {
        let message = try only(CapturedMessages.networkUnreachable)
        #expect(message.errorCode == -ENETUNREACH)
        #expect(Route(message) == nil)
    }

    @Test func aDumpsEndSaysWhetherTheDumpFailed() throws {
        var failedEnd = NetlinkRequest(type: UInt16(NLMSG_DONE), sequence: 3, familyHeader: [])
        failedEnd.appendField(Int32(-ENOENT))
        var goodEnd = NetlinkRequest(type: UInt16(NLMSG_DONE), sequence: 4, familyHeader: [])
        goodEnd.appendField(Int32(0))
        let bytes = failedEnd.finished() + goodEnd.finished()
        let messages = NetlinkMessage.split(bytes[...]).messages
        #expect(messages.map(\.isDone) == [true, true])
        #expect(messages.map(\.dumpErrorCode) == [-ENOENT, nil])
        #expect(messages.allSatisfy { $0.errorCode == nil })
    }

    @Test func addressAndLinkRepliesParse() throws {
        let address = try #require(InterfaceAddress(try only(CapturedMessages.loopbackAddress)))
        #expect(address.address.description == "127.0.0.1")
        #expect(address.prefixLength == 8)
        #expect(address.interfaceIndex == 1)
        #expect(address.isUsable)
        let link = try #require(Link(try only(CapturedMessages.loopbackLink)))
        #expect(link.name == "lo")
        #expect(link.index == 1)
        #expect(link.isLoopback)
        #expect(link.hardwareType == UInt16(ARPHRD_LOOPBACK))
        #expect(link.isReadyToCarry)
    }

    /// Every prefix of every captured message: dropped and counted, or parsed from what is whole; never a trap.
    @Test(arguments: [
        CapturedMessages.routeToLoopback, CapturedMessages.networkUnreachable, CapturedMessages.loopbackAddress,
        CapturedMessages.loopbackLink,
    ])
    func truncatedMessagesAreDroppedNotTrapped(bytes: [UInt8]) {
        for length in 0..<bytes.count {
            let (messages, malformed) = NetlinkMessage.split(bytes[0..<length])
            #expect(messages.isEmpty)
            #expect(malformed == (length == 0 ? 0 : 1))
        }
    }

    @Test func lyingLengthsAreMalformed() {
        var tooLong = CapturedMessages.routeToLoopback
        tooLong[0] = 0xFF  // nlmsg_len past the datagram
        #expect(NetlinkMessage.split(tooLong[...]).malformed == 1)
        var tooShort = CapturedMessages.routeToLoopback
        tooShort[0] = 8  // shorter than the header itself
        tooShort[1] = 0
        #expect(NetlinkMessage.split(tooShort[...]).malformed == 1)
        // An attribute whose length runs past the message, and one shorter than its own header
        var attributeTooLong = CapturedMessages.routeToLoopback
        attributeTooLong[28] = 0xF0
        #expect(Route(NetlinkMessage.split(attributeTooLong[...]).messages[0]) == nil)
        var attributeTooShort = CapturedMessages.routeToLoopback
        attributeTooShort[28] = 2
        #expect(Route(NetlinkMessage.split(attributeTooShort[...]).messages[0]) == nil)
    }

    @Test func routeAttributesFirstOneWinsAndAViaIsTheGatewayOnlyWithoutAGateway() throws {
        // An IPv4 route through an IPv6 next hop (RTA_VIA: family, then the address), its output interface
        // given twice, and its table attribute overriding the one-byte field
        var via: [UInt8] = [UInt8(AF_INET6), 0]
        via += try IPAddress("fe80::1").bytes
        let attributes: [(UInt16, [UInt8])] = [
            (UInt16(RTA_TABLE.rawValue), [0x10, 0x27, 0, 0]),  // 10,000 in native order
            (UInt16(RTA_DST.rawValue), [198, 51, 100, 0]),
            (UInt16(RTA_VIA.rawValue), via),
            (UInt16(RTA_OIF.rawValue), [7, 0, 0, 0]),
            (UInt16(RTA_OIF.rawValue), [9, 0, 0, 0]),
            (UInt16(RTA_PREFSRC.rawValue), [192, 0, 2, 2]),
        ]
        let route = try #require(Route(Self.routeMessage(attributes)))
        #expect(route.table == 10_000)
        #expect(try route.destination == IPAddress("198.51.100.0"))
        #expect(try route.gateway == IPAddress("fe80::1"))
        #expect(route.outputInterface == 7)
        #expect(try route.preferredSource == IPAddress("192.0.2.2"))
        // With a gateway too, the gateway wins; an output interface shorter than four bytes is none
        let both = try #require(
            Route(
                Self.routeMessage([
                    (UInt16(RTA_VIA.rawValue), via), (UInt16(RTA_GATEWAY.rawValue), [192, 0, 2, 1]),
                    (UInt16(RTA_OIF.rawValue), [7, 0]),
                ])))
        #expect(try both.gateway == IPAddress("192.0.2.1"))
        #expect(both.outputInterface == nil)
        // An address of the wrong size is no address, and the rest of the message still counts
        let odd = try #require(Route(Self.routeMessage([(UInt16(RTA_DST.rawValue), [198, 51, 100])])))
        #expect(odd.destination == nil)
        #expect(odd.type == .unicast)
    }

    /// `RTA_MULTIPATH`: each `rtnexthop` (length, flags, hops, interface index) with its own `RTA_GATEWAY`; every
    /// gateway is read, and a hop whose length lies makes the whole message malformed.
    @Test func aMultipathRouteNamesEveryNextHopsGatewayAndALyingHopIsMalformed() throws {
        func hop(_ gateway: [UInt8], interface: UInt32, length: UInt16? = nil) -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.appendNative(length ?? UInt16(8 + 4 + gateway.count))
            bytes += [0, 0]  // flags, hops
            bytes.appendNative(interface)
            bytes.appendNative(UInt16(4 + gateway.count))
            bytes.appendNative(UInt16(RTA_GATEWAY.rawValue))
            return bytes + gateway
        }
        let multipath = hop([192, 0, 2, 1], interface: 2) + hop([198, 51, 100, 1], interface: 3)
        let route = try #require(Route(Self.routeMessage([(UInt16(RTA_MULTIPATH.rawValue), multipath)])))
        #expect(route.hasNextHopChoice)
        #expect(try route.multipathGateways == [IPAddress("192.0.2.1"), IPAddress("198.51.100.1")])
        for length: UInt16 in [7, 200] {
            let lying = hop([192, 0, 2, 1], interface: 2, length: length)
            #expect(Route(Self.routeMessage([(UInt16(RTA_MULTIPATH.rawValue), lying)])) == nil, "\(length)")
        }
    }

    /// An `RTM_NEWROUTE` for IPv4 in the main table, unicast, with `attributes` in order.
    private static func routeMessage(_ attributes: [(UInt16, [UInt8])]) -> NetlinkMessage {
        var payload: [UInt8] = [UInt8(AF_INET), 24, 0, 0, UInt8(RT_TABLE_MAIN.rawValue), 0, 0, UInt8(RTN_UNICAST)]
        payload.appendNative(UInt32(0))  // rtm_flags
        for (type, value) in attributes {
            payload.appendNative(UInt16(4 + value.count))
            payload.appendNative(type)
            payload += value
            payload += [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
        }
        return NetlinkMessage(type: UInt16(RTM_NEWROUTE), flags: 0, sequence: 0, portID: 0, payload: payload[...])
    }

    @Test func twoMessagesInOneDatagramBothParse() {
        let datagram = CapturedMessages.loopbackAddress + CapturedMessages.routeToLoopback
        let (messages, malformed) = NetlinkMessage.split(datagram[...])
        #expect(malformed == 0)
        #expect(messages.count == 2)
        #expect(Route(messages[1]) != nil)
    }

    /// A deterministic mutation run over the captured bytes: flipped bytes and cut tails never trap.
    @Test func mutatedMessagesNeverTrap() {
        var generator = SplitMix64(seed: 0x5EED)
        let seeds = [
            CapturedMessages.routeToLoopback, CapturedMessages.loopbackAddress, CapturedMessages.loopbackLink,
            CapturedMessages.networkUnreachable,
        ]
        for _ in 0..<20_000 {
            var bytes = seeds[Int(generator.next() % UInt64(seeds.count))]
            for _ in 0..<(1 + generator.next() % 4) {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            let cut = bytes.prefix(Int(generator.next() % UInt64(bytes.count + 1)))
            for message in NetlinkMessage.split(cut).messages {
                _ = Route(message)
                _ = Link(message)
                _ = InterfaceAddress(message)
                _ = message.errorCode
            }
        }
    }

    @Test func requestsAreAlignedAndCarryTheirLength() {
        var request = NetlinkRequest(type: UInt16(RTM_GETROUTE), sequence: 9, familyHeader: [UInt8](repeating: 0, count: 12))
        request.appendAttribute(UInt16(RTA_OIF.rawValue), uint32: 3)
        request.appendAttribute(UInt16(RTA_DST.rawValue), [1, 2, 3])  // padded to 4
        let encoded = request.encoded
        #expect(encoded.count == 16 + 12 + 8 + 8)
        let message = NetlinkMessage.split(encoded[...]).messages.first
        #expect(message?.sequence == 9)
        #expect(message?.flags == UInt16(NLM_F_REQUEST))
    }
}
