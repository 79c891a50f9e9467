import CNetlink
import Glibc
import Testing

@testable import NetworkReachability

/// Parsing of captured kernel bytes, and of truncated and lying ones, which must never trap.
struct NetlinkParsingTests {
    private func only(_ bytes: [UInt8]) throws -> NetlinkMessage {
        let (messages, malformed) = NetlinkMessage.split(bytes[...])
        #expect(malformed == 0)
        return try #require(messages.first)
    }

    @Test func routeReplyForLoopbackIsALocalRouteThroughLo() throws {
        let route = try #require(RouteMessage(try only(CapturedMessages.routeToLoopback)))
        #expect(route.type == .local)
        #expect(route.outputInterface == 1)
        #expect(route.destination?.description == "127.0.0.1")
        #expect(route.preferredSource?.description == "127.0.0.1")
        #expect(route.gateway == nil)
        #expect(route.table == UInt32(RT_TABLE_MAIN.rawValue))  // lookup replies name main even for local routes
        let loopback = LinkMessage(
            index: 1, name: "lo", hardwareType: UInt16(ARPHRD_LOOPBACK),
            flags: cnl_iff_up() | cnl_iff_lower_up() | cnl_iff_loopback(),
            operationalState: cnl_if_oper_unknown(), kind: nil)
        #expect(
            TargetEvaluator.flags(route: route, link: loopback, interfaceType: .loopback) == [
                .reachable, .isLocalAddress, .isDirect,
            ])
    }

    @Test func errorReplyCarriesTheNegativeErrno() throws {
        let message = try only(CapturedMessages.networkUnreachable)
        #expect(message.errorCode == -ENETUNREACH)
        #expect(RouteMessage(message) == nil)
    }

    @Test func addressAndLinkRepliesParse() throws {
        let address = try #require(AddressMessage(try only(CapturedMessages.loopbackAddress)))
        #expect(address.address.description == "127.0.0.1")
        #expect(address.prefixLength == 8)
        #expect(address.interfaceIndex == 1)
        #expect(address.isUsable)
        let link = try #require(LinkMessage(try only(CapturedMessages.loopbackLink)))
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
        #expect(RouteMessage(NetlinkMessage.split(attributeTooLong[...]).messages[0]) == nil)
        var attributeTooShort = CapturedMessages.routeToLoopback
        attributeTooShort[28] = 2
        #expect(RouteMessage(NetlinkMessage.split(attributeTooShort[...]).messages[0]) == nil)
    }

    @Test func twoMessagesInOneDatagramBothParse() {
        let datagram = CapturedMessages.loopbackAddress + CapturedMessages.routeToLoopback
        let (messages, malformed) = NetlinkMessage.split(datagram[...])
        #expect(malformed == 0)
        #expect(messages.count == 2)
        #expect(RouteMessage(messages[1]) != nil)
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
                _ = RouteMessage(message)
                _ = LinkMessage(message)
                _ = AddressMessage(message)
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

/// A small deterministic generator, so the mutation test repeats exactly.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
