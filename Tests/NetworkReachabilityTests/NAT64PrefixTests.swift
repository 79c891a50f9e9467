import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// RFC 6052 §2.4's example table, both ways, and what the RFC forbids.
struct NAT64PrefixTests {
    @Test(arguments: [
        ("2001:db8::/32", "2001:db8:c000:221::"),
        ("2001:db8:100::/40", "2001:db8:1c0:2:21::"),
        ("2001:db8:122::/48", "2001:db8:122:c000:2:2100::"),
        ("2001:db8:122:300::/56", "2001:db8:122:3c0:0:221::"),
        ("2001:db8:122:344::/64", "2001:db8:122:344:c0:2:2100:0"),
        ("2001:db8:122:344::/96", "2001:db8:122:344::192.0.2.33"),
        ("64:ff9b::/96", "64:ff9b::192.0.2.33"),
    ])
    func synthesizesAndExtractsTheRFCExamples(prefix: String, embedded: String) throws {
        let nat64 = try NAT64Prefix(prefix)
        let ipv4 = try IPAddress("192.0.2.33")
        #expect(try nat64.synthesize(ipv4) == IPAddress(embedded))
        #expect(nat64.extractIPv4(from: try IPAddress(embedded)) == ipv4)
        #expect(nat64.description == prefix)
    }

    @Test(arguments: [
        "64:ff9b::/95", "64:ff9b::/128", "64:ff9b::/0", "64:ff9b::", "192.0.2.0/96", "64:ff9b::1/96",
        "2001:db8::1:0:0:0/32", "2001:db8:0:0:ff00::/96", "nonsense/96", "fe80::%eth0/64",
    ])
    func rejectsInvalidPrefixes(text: String) {
        #expect(throws: ReachabilityError.self) { try NAT64Prefix(text) }
    }

    @Test func extractionRejectsOtherPrefixesAndUOctetOrSuffixViolations() throws {
        let nat64 = try NAT64Prefix("2001:db8:122:344::/64")
        #expect(nat64.extractIPv4(from: try IPAddress("2001:db8:ffff:344:c0:2:2100:0")) == nil)  // another prefix
        #expect(nat64.extractIPv4(from: try IPAddress("2001:db8:122:344:c0:2:2100:1")) == nil)  // suffix not zero
        let wellKnown = NAT64Prefix.wellKnown
        #expect(wellKnown.extractIPv4(from: try IPAddress("64:ff9b:0:0:100::c000:221")) == nil)  // u octet set
        #expect(wellKnown.description == "64:ff9b::/96")
        #expect(throws: ReachabilityError.self) { try wellKnown.synthesize(IPAddress("2001:db8::1")) }
    }
}
