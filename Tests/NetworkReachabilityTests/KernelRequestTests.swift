import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// The requests the queries send, byte by byte: written one after another into one batch buffer, each must
/// still be a well-formed message with its own length, flags, sequence and family header.
struct KernelRequestTests {
    private func messages(_ requests: [KernelRequest], firstSequence: UInt32 = 7) -> [NetlinkMessage] {
        var batch: [UInt8] = []
        for (offset, request) in requests.enumerated() {
            batch = request.encode(sequence: firstSequence + UInt32(offset), appendingTo: batch)
        }
        let (messages, malformed) = NetlinkMessage.split(batch[...])
        #expect(malformed == 0)
        return messages
    }

    private func attributes(_ message: NetlinkMessage, after headerLength: Int) throws -> [UInt16: [UInt8]] {
        let attributes = try #require(message.attributes(afterHeaderOfLength: headerLength))
        return Dictionary(attributes.map { ($0.type, Array($0.payload)) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func aRouteLookupCarriesItsRtmsgAndAttributes() throws {
        let destination = try IPAddress("2001:db8::7")
        let source = try IPAddress("2001:db8::2")
        let message = try #require(messages([.route(to: destination, from: source, interfaceIndex: 3)]).first)
        #expect(message.type == UInt16(RTM_GETROUTE))
        #expect(message.flags == UInt16(NLM_F_REQUEST))
        #expect(message.sequence == 7)
        // rtmsg: family, dst_len, src_len, then zeros (tos, table, protocol, scope, type, flags)
        #expect(Array(message.payload.prefix(12)) == [UInt8(AF_INET6), 128, 128] + [UInt8](repeating: 0, count: 9))
        let attributes = try attributes(message, after: Int(cnl_rtmsg_length()))
        #expect(attributes[UInt16(RTA_DST.rawValue)] == destination.bytes)
        #expect(attributes[UInt16(RTA_SRC.rawValue)] == source.bytes)
        #expect(attributes[UInt16(RTA_OIF.rawValue)] == withUnsafeBytes(of: UInt32(3)) { Array($0) })
    }

    @Test func aPlainRouteLookupHasNoSourceLength() throws {
        let message = try #require(messages([.route(to: try IPAddress("192.0.2.9"), from: nil, interfaceIndex: nil)]).first)
        #expect(Array(message.payload.prefix(12)) == [UInt8(AF_INET), 32, 0] + [UInt8](repeating: 0, count: 9))
        let attributes = try attributes(message, after: Int(cnl_rtmsg_length()))
        #expect(attributes.keys.sorted() == [UInt16(RTA_DST.rawValue)])
        #expect(attributes[UInt16(RTA_DST.rawValue)] == [192, 0, 2, 9])
    }

    @Test func aMarkedLookupCarriesTheMarkAsAPacketWould() throws {
        let message = try #require(messages([.markedRoute(to: try IPAddress("8.8.8.8"), mark: 51820)]).first)
        #expect(message.type == UInt16(RTM_GETROUTE) && message.flags == UInt16(NLM_F_REQUEST))
        #expect(Array(message.payload.prefix(12)) == [UInt8(AF_INET), 32, 0] + [UInt8](repeating: 0, count: 9))
        let attributes = try attributes(message, after: Int(cnl_rtmsg_length()))
        #expect(attributes.keys.sorted() == [UInt16(RTA_DST.rawValue), UInt16(RTA_MARK.rawValue)].sorted())
        #expect(attributes[UInt16(RTA_MARK.rawValue)] == withUnsafeBytes(of: UInt32(51820)) { Array($0) })
    }

    @Test func linkQueriesAndDumpsCarryAnIfinfomsg() throws {
        let encoded = messages([.link(index: 4), .linkNamed("eth0"), .links, .addresses])
        #expect(encoded.map(\.sequence) == [7, 8, 9, 10])
        #expect(encoded.map(\.type) == [UInt16(RTM_GETLINK), UInt16(RTM_GETLINK), UInt16(RTM_GETLINK), UInt16(RTM_GETADDR)])
        let dump = UInt16(NLM_F_REQUEST) | UInt16(NLM_F_DUMP)
        #expect(encoded.map(\.flags) == [UInt16(NLM_F_REQUEST), UInt16(NLM_F_REQUEST), dump, dump])
        // ifinfomsg: family, pad, type, index (native), flags, change
        var byIndex: [UInt8] = [UInt8(AF_UNSPEC), 0, 0, 0]
        byIndex.appendNative(Int32(4))
        #expect(Array(encoded[0].payload.prefix(16)) == byIndex + [UInt8](repeating: 0, count: 8))
        let linkAttributes = try attributes(encoded[0], after: 16)
        #expect(linkAttributes[UInt16(IFLA_EXT_MASK)] == withUnsafeBytes(of: UInt32(RTEXT_FILTER_SKIP_STATS)) { Array($0) })
        #expect(try attributes(encoded[1], after: 16)[UInt16(IFLA_IFNAME)] == Array("eth0".utf8) + [0])
        #expect(encoded[2].payload.count == 16)
        #expect(Array(encoded[3].payload) == [UInt8](repeating: 0, count: 8))
    }

    @Test func entryLookupsAndTheDumpsOfRulesAndRoutesSayWhatTheyAsk() throws {
        let encoded = messages([
            .matchedRoute(to: try IPAddress("10.0.0.7")), .routes(family: .ipv4, table: 253, type: nil),
            .routes(family: .ipv6, table: 1000, type: UInt8(RTN_THROW)), .rules(family: .ipv4),
            .routes(family: .ipv4, table: nil, type: UInt8(RTN_UNREACHABLE)),
        ])
        let route = UInt16(RTM_GETROUTE)
        #expect(encoded.map(\.type) == [route, route, route, UInt16(RTM_GETRULE), route])
        let dump = UInt16(NLM_F_REQUEST) | UInt16(NLM_F_DUMP)
        #expect(encoded.map(\.flags) == [UInt16(NLM_F_REQUEST), dump, dump, dump, dump])
        // rtmsg of the entry lookup: a full-length destination, flags RTM_F_FIB_MATCH and RTM_F_LOOKUP_TABLE
        var entryHeader: [UInt8] = [UInt8(AF_INET), 32, 0, 0, 0, 0, 0, 0]
        entryHeader.appendNative(UInt32(RTM_F_FIB_MATCH) | UInt32(RTM_F_LOOKUP_TABLE))
        #expect(Array(encoded[0].payload.prefix(12)) == entryHeader)
        #expect(try attributes(encoded[0], after: Int(cnl_rtmsg_length())) == [UInt16(RTA_DST.rawValue): [10, 0, 0, 7]])
        // the table in rtm_table when it fits a byte, and in RTA_TABLE always; the type in rtm_type
        #expect(Array(encoded[1].payload.prefix(12)) == [UInt8(AF_INET), 0, 0, 0, 253] + [UInt8](repeating: 0, count: 7))
        #expect(Array(encoded[2].payload.prefix(12)) == [UInt8(AF_INET6), 0, 0, 0, 0, 0, 0, UInt8(RTN_THROW), 0, 0, 0, 0])
        let table = try attributes(encoded[2], after: Int(cnl_rtmsg_length()))
        #expect(table == [UInt16(RTA_TABLE.rawValue): withUnsafeBytes(of: UInt32(1000)) { Array($0) }])
        // fib_rule_hdr: the family, the rest zero
        #expect(Array(encoded[3].payload) == [UInt8(AF_INET)] + [UInt8](repeating: 0, count: 11))
        // every table: no RTA_TABLE
        #expect(Array(encoded[4].payload) == [UInt8(AF_INET), 0, 0, 0, 0, 0, 0, UInt8(RTN_UNREACHABLE), 0, 0, 0, 0])
    }

    /// The same request put together field by field with ``NetlinkRequest``, numbered 5.
    private func built(
        _ type: Int, flags: Int32 = 0, familyHeader: [UInt8], attributes: (inout NetlinkRequest) -> Void = { _ in }
    ) -> [UInt8] {
        var request = NetlinkRequest(appendingTo: [], type: UInt16(type), flags: UInt16(flags), sequence: 5)
        for field in familyHeader { request.appendField(field) }
        attributes(&request)
        return request.encoded
    }

    @Test func inPlaceEncodingMatchesTheFieldByFieldBuilder() throws {
        // Given requests with every kind of attribute, and each built field by field
        let destination = try IPAddress("2001:db8::7")
        let source = try IPAddress("2001:db8::2")
        let route = built(RTM_GETROUTE, familyHeader: [UInt8(AF_INET6), 128, 128] + [UInt8](repeating: 0, count: 9)) {
            $0.appendAttribute(UInt16(RTA_DST.rawValue), destination.bytes)
            $0.appendAttribute(UInt16(RTA_SRC.rawValue), source.bytes)
            $0.appendAttribute(UInt16(RTA_OIF.rawValue), uint32: 3)
        }
        let named = built(RTM_GETLINK, familyHeader: [UInt8](repeating: 0, count: 16)) {
            $0.appendAttribute(UInt16(IFLA_IFNAME), Array("wlan0".utf8) + [0])
        }
        let addresses = built(RTM_GETADDR, flags: NLM_F_DUMP, familyHeader: [UInt8](repeating: 0, count: 8))
        let cases: [(KernelRequest, [UInt8])] = [
            (.route(to: destination, from: source, interfaceIndex: 3), route), (.linkNamed("wlan0"), named),
            (.addresses, addresses),
        ]
        for (request, expected) in cases {
            // When it is written in place after bytes already in the buffer
            let encoded = request.encode(sequence: 5, appendingTo: [1, 2, 3, 4])
            // Then its bytes are the builder's, and its length the one computed beforehand
            #expect(Array(encoded.dropFirst(4)) == expected)
            #expect(encoded.count - 4 == request.encodedLength)
        }
    }

    @Test func everyRequestOfABatchStartsAligned() {
        // "wlan0" and its NUL make a 10-byte attribute, padded to 12: the next request must start aligned.
        let encoded = messages([
            .linkNamed("wlan0"), .route(to: TargetEvaluator.internetProbeIPv4, from: nil, interfaceIndex: nil),
        ])
        #expect(encoded.count == 2)
        #expect(encoded.last?.type == UInt16(RTM_GETROUTE))
        #expect(encoded.last?.sequence == 8)
    }
}
