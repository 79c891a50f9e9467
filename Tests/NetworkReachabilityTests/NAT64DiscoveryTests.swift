import CNetlink
import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// RFC 7050 §3: locating 192.0.0.170/171 in DNS64's AAAA answers for ipv4only.arpa.
struct NAT64DiscoveryTests {
    @Test(arguments: [
        (["64:ff9b::c000:aa", "64:ff9b::c000:ab"], ["64:ff9b::/96"]),
        (["2001:db8:122:c000:0:aa00::"], ["2001:db8:122::/48"]),
        (["2001:db8:c000:aa::"], ["2001:db8::/32"]),
        (["2001:db8:122:344:c0:0:aa00:0"], ["2001:db8:122:344::/64"]),
        (["2001:db8::1", "64:ff9b::c000:221"], []),  // no well-known address embedded
        (["2001:db8:122:c000:0:aa00::", "64:ff9b::c000:aa"], ["2001:db8:122::/48", "64:ff9b::/96"]),
    ])
    func findsThePrefixAtTheLengthWhereTheWellKnownAddressSits(answers: [String], prefixes: [String]) throws {
        let found = NAT64Discovery.prefixes(in: try answers.map { try IPAddress($0) })
        #expect(found.map(\.description) == prefixes)
    }

    @Test func resolverConfigurationReadsNameServersAndTellsIPv6Only() {
        let mixed = ResolverConfiguration(parsing: "# comment\nnameserver 192.0.2.53\nsearch example\nnameserver 2001:db8::53\n")
        #expect(mixed.nameServers.map(\.description) == ["192.0.2.53", "2001:db8::53"])
        #expect(!mixed.isIPv6Only)
        #expect(ResolverConfiguration(parsing: "nameserver 2001:db8::53\nnameserver\tfe80::1%eth0\n").isIPv6Only)
        #expect(!ResolverConfiguration(parsing: "options ndots:2\nnameserver bogus\n").isIPv6Only)
    }
}

/// RFC 8781 PREF64, RFC 8106 RDNSS and RFC 8910 captive-portal options as the kernel passes them on.
struct RouterAdvertisementParsingTests {
    private func message(options: [UInt8], icmpType: UInt8 = 134) -> NetlinkMessage {
        var header: [UInt8] = [10, 0]
        header.appendNative(UInt16(options.count))
        header.appendNative(Int32(3))
        header += [icmpType, 0, 0, 0, 0, 0, 0, 0]
        let request = NetlinkRequest(type: UInt16(RTM_NEWNDUSEROPT), sequence: 0, familyHeader: header + options)
        return NetlinkMessage.split(request.encoded[...]).messages[0]
    }

    private let pref64: [UInt8] = [38, 2, 0x0E, 0x10 | 3] + [0x20, 0x01, 0x0D, 0xB8, 0x01, 0x22, 0, 0, 0, 0, 0, 0]  // /48, 3600 s
    private let rdnss: [UInt8] =
        [25, 3, 0, 0, 0, 0, 0x02, 0x58] + [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 10) + [0, 0x53]

    @Test func parsesPrefix64RDNSSAndPortal() throws {
        let uri = Array("https://p.example/".utf8)
        let portal: [UInt8] = [37, 3] + uri + [UInt8](repeating: 0, count: 24 - 2 - uri.count)
        let advertisement = try #require(NDUserOptionMessage.parse(message(options: pref64 + rdnss + portal)))
        #expect(advertisement.interfaceIndex == 3)
        #expect(advertisement.nat64Prefixes.map(\.prefix.description) == ["2001:db8:122::/48"])
        #expect(advertisement.nat64Prefixes.first?.lifetime == .seconds(3600))
        #expect(advertisement.dnsServers.map(\.description) == ["2001:db8::53"])
        #expect(advertisement.dnsLifetime == .seconds(600))
        #expect(advertisement.captivePortal == "https://p.example/")
    }

    @Test func rejectsLyingLengthsAndOtherICMPTypes() {
        #expect(NDUserOptionMessage.parse(message(options: [38, 3] + Array(pref64.dropFirst(2)))) == nil)  // 24 bytes claimed
        #expect(NDUserOptionMessage.parse(message(options: [38, 0] + Array(pref64.dropFirst(2)))) == nil)  // zero length
        #expect(NDUserOptionMessage.parse(message(options: pref64, icmpType: 135)) == nil)
        var badCode = pref64
        badCode[3] = 0x17  // prefix length code 7 does not exist
        #expect(NDUserOptionMessage.parse(message(options: badCode))?.nat64Prefixes == [])
    }

    @Test func latestAdvertisementWinsAndZeroLifetimeWithdraws() throws {
        let prefix = try NAT64Prefix("64:ff9b::/96")
        var first = RouterAdvertisement(interfaceIndex: 2)
        first.nat64Prefixes = [.init(prefix: prefix, lifetime: .seconds(600))]
        first.dnsServers = [try IPAddress("2001:db8::53")]
        first.dnsLifetime = .seconds(60)
        var withdrawal = RouterAdvertisement(interfaceIndex: 2)
        withdrawal.nat64Prefixes = [.init(prefix: prefix, lifetime: .zero)]
        #expect(RouterAdvertisementSummary(folding: [first]).nat64Prefixes.map(\.prefix) == [prefix])
        let after = RouterAdvertisementSummary(folding: [first, withdrawal])
        #expect(after.nat64Prefixes.isEmpty)
        #expect(after.dnsServers.map(\.description) == ["2001:db8::53"])
    }
}
