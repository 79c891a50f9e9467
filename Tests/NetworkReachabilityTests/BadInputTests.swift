import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// Every public way in, fed hostile text: each answers with the typed error that names the problem, never a trap.
struct BadInputTests {
    /// The error's case, without its payload; "untyped" for an error that is not a ``ReachabilityError``.
    private static func caseName(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "no error"
        } catch let error as ReachabilityError {
            return Mirror(reflecting: error).children.first?.label ?? "\(error)"
        } catch {
            return "untyped"
        }
    }

    private static let huge = String(repeating: "a", count: 100_000)
    private static let notUTF8 = String(decoding: [0xFF, 0xFE, 0x31], as: UTF8.self)

    @Test(arguments: [
        "", " ", "1.2.3", "1.2.3.4.5", "256.0.0.1", "01.2.3.4", "::1::", "1::2::3", "fe80::1%", "192.0.2.1\0evil", "\0",
        huge, notUTF8, "192.0.2.1%eth0", "[::1]", "::1/128", "1.2.3.4 ",
    ])
    func addressesThatAreNotAddressesAreInvalidAddresses(text: String) {
        #expect(Self.caseName { _ = try IPAddress(text) } == "invalidAddress")
    }

    @Test(arguments: [
        "", ".", "a..b", huge, String(repeating: "a", count: 64) + ".example", "exa mple.com", "\0", "a\nb", notUTF8,
    ])
    func namesThatAreNotHostNamesAreInvalidHostNames(text: String) {
        #expect(Self.caseName { _ = try HostName(text) } == "invalidHostName")
        // Text of only digits and dots, such as ".", reads as a broken IPv4 literal
        #expect(["invalidHostName", "invalidAddress"].contains(Self.caseName { _ = try NetworkReachability(host: text) }))
    }

    @Test(arguments: [
        "", "/96", "64:ff9b::/", "64:ff9b::/95", "64:ff9b::/-1", "64:ff9b::/129", "64:ff9b::/99999999999999999999999",
        "192.0.2.0/96", "64:ff9b::1/96", "64:ff9b:0:0:ff00::/96", huge, notUTF8, "64:ff9b::/96\0",
    ])
    func prefixesRFC6052DoesNotAllowAreInvalidPrefixes(text: String) {
        #expect(Self.caseName { _ = try NAT64Prefix(text) } == "invalidNAT64Prefix")
    }

    @Test(arguments: ["fe80::1%doesnotexist", "fe80::1%4294967295", "fe80::1%99999999999999999999", "fe80::1%0", "fe80::1%-1"])
    func zonesThatNameNoInterfaceAreUnknownZonesOrInvalid(text: String) {
        #expect(["unknownZone", "invalidAddress"].contains(Self.caseName { _ = try NetworkReachability(address: text) }))
    }

    @Test func addressPairsAreCheckedForFamilyAndOwnership() {
        #expect(
            Self.caseName { _ = try NetworkReachability(localAddress: "127.0.0.1", remoteAddress: "::1") } == "familyMismatch")
        #expect(
            Self.caseName { _ = try NetworkReachability(localAddress: "203.0.113.77", remoteAddress: "192.0.2.1") }
                == "localAddressNotOwned")
        #expect(Self.caseName { _ = try NetworkReachability(localAddress: "", remoteAddress: "192.0.2.1") } == "invalidAddress")
        #expect(
            Self.caseName { _ = try NetworkReachability(localAddress: "127.0.0.1", remoteAddress: Self.huge) } == "invalidAddress"
        )
    }

    @Test(arguments: [Duration.zero, .seconds(-1), .nanoseconds(-1), .seconds(86_401), .seconds(Int64.max)])
    func timeoutsOutsideZeroToADayAreRejected(timeout: Duration) {
        #expect(
            Self.caseName { _ = try NetworkReachability(host: "example.com", resolutionTimeout: timeout) }
                == "invalidResolutionTimeout")
        #expect(
            Self.caseName { _ = try NetworkReachability(target: .internet, resolutionTimeout: timeout) }
                == "invalidResolutionTimeout")
    }

    @Test(arguments: ["", "\0", huge, notUTF8, "internet ", "link-local\n"])
    func targetsThatAreNeitherKeywordsNorAddressesNorNamesAreTypedErrors(text: String) {
        let name = Self.caseName { _ = try ReachabilityTarget(parsing: text) }
        #expect(["invalidHostName", "invalidAddress"].contains(name))
    }

    @Test func messagesStayOneShortLineWhateverTheInput() {
        let errors: [ReachabilityError] = [
            .invalidHostName("a\nb\0c", reason: "r"), .invalidAddress(Self.huge, reason: "r"), .unknownZone("x\r\ny"),
        ]
        for error in errors {
            #expect(!error.description.contains("\n") && !error.description.contains("\r") && !error.description.contains("\0"))
            #expect(error.description.count < 200)
        }
    }

    /// A failed system call reads as the C library's words and errno's name, never a bare number.
    @Test func systemErrorsReadAsWords() throws {
        #expect(throws: ReachabilityError.systemCallFailed(call: "close", errno: EBADF)) {
            try SystemCall.run("close") { libcClose(-1) }
        }
        #expect(
            ReachabilityError.systemCallFailed(call: "socket", errno: EACCES).description
                == "socket failed: Permission denied (EACCES)")
        #expect(ReachabilityError.words(forErrno: 99_999).hasPrefix("Unknown error"))
    }
}
