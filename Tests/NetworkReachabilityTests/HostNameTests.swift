import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

struct HostNameTests {
    @Test(arguments: [
        "example.com", "example.com.", "localhost", "a", "xn--bcher-kva.example", "bücher.example", "例え.テスト",
        "_service.example", "a-b.c-d", "1.example", "host1", String(repeating: "a", count: 63) + ".example",
        Array(repeating: String(repeating: "a", count: 49), count: 5).joined(separator: "."),
    ])
    func acceptsHostNamesIncludingInternationalOnes(name: String) throws {
        #expect(try HostName(name).name == (name.hasSuffix(".") ? String(name.dropLast()) : name))
    }

    @Test(arguments: [
        ("", "empty"), (".", "empty label"), ("a..b", "empty label"), (".example", "empty label"),
        (String(repeating: "a", count: 64) + ".example", "label is longer than 63"),
        (Array(repeating: String(repeating: "a", count: 50), count: 5).joined(separator: "."), "longer than 253"),
        ("exa mple.com", "characters"), ("exa\u{0}mple.com", "characters"), ("a/b", "characters"), ("a@b", "characters"),
        ("a:b", "characters"), ("-a.example", "starts or ends with '-'"), ("a-.example", "starts or ends with '-'"),
        ("1.2.3", "all-numeric"), ("example.123", "all-numeric"), ("\u{FFFD}", "characters"),
    ])
    func rejectsWhatNoHostNameCanBeWithATypedError(name: String, reason: String) {
        #expect {
            try HostName(name)
        } throws: { error in
            guard case .invalidHostName(_, let why) = error as? ReachabilityError else { return false }
            return why.contains(reason)
        }
    }

    @Test func ipLiteralsBecomeAddressTargetsWithoutDNS() throws {
        #expect(try ReachabilityTarget(hostOrAddress: "192.0.2.1") == .address(IPAddress("192.0.2.1")))
        #expect(try ReachabilityTarget(hostOrAddress: "2001:db8::1") == .address(IPAddress("2001:db8::1")))
        #expect(try ReachabilityTarget(hostOrAddress: "internet") == .host(HostName("internet")))
    }

    @Test func pendingResolutionMakesTheStatusUnknown() throws {
        let name = try HostName("example.com")
        let pending = ReachabilitySnapshot(
            target: .host(name), flags: [], path: ReachabilityPath(host: HostResolution(name: "example.com", state: .pending)))
        #expect(pending.status == .unknown)
        var failed = pending
        failed.path.host?.state = .failed
        #expect(failed.status == .notReachable)
    }
}
