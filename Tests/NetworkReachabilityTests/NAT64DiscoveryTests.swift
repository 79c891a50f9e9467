import Testing

@testable import NetworkReachability

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
