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

struct IPAddressTests {
    /// Input, then how inet_ntop prints it.
    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"), ("0.0.0.0", "0.0.0.0"), ("255.255.255.255", "255.255.255.255"),
        ("::", "::"), ("::1", "::1"), ("1::", "1::"), ("2001:DB8::1", "2001:db8::1"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"), ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("2001:0db8:0000:0000:0000:0000:0002:0001", "2001:db8::2:1"), ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
        ("::ffff:192.0.2.1", "::ffff:192.0.2.1"), ("::ffff:c000:201", "::ffff:192.0.2.1"),
        ("::192.0.2.1", "::192.0.2.1"), ("64:ff9b::192.0.2.33", "64:ff9b::c000:221"),
        ("fe80::1%eth0", "fe80::1%eth0"), ("fe80::1%2", "fe80::1%2"), ("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"),
        ("::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8"),
    ])
    func parsesAndFormatsLikeGlibc(input: String, formatted: String) throws {
        #expect(try IPAddress(input).description == formatted)
    }

    @Test func formatsEveryShapeExactlyAsGlibcDoes() {
        // Given addresses whose groups are mostly zero runs, 0xffff and small or large values (every
        // compression and dotted-quad case), from a fixed seed
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<20_000 {
            let isIPv6 = generator.next() % 4 != 0
            var bytes: [UInt8] = []
            for _ in 0..<(isIPv6 ? 8 : 2) {
                let word: UInt16 =
                    switch generator.next() % 5 {
                    case 0, 1: 0
                    case 2: 0xFFFF
                    case 3: UInt16(truncatingIfNeeded: generator.next() % 16)
                    default: UInt16(truncatingIfNeeded: generator.next())
                    }
                bytes += [UInt8(word >> 8), UInt8(truncatingIfNeeded: word)]
            }
            // When ours and inet_ntop format it
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            _ = inet_ntop(isIPv6 ? AF_INET6 : AF_INET, bytes, &text, socklen_t(text.count))
            let expected = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // Then the texts are the same
            #expect(IPAddress(bytes: bytes)?.description == expected, "\(bytes)")
        }
    }

    @Test(arguments: [
        "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.-4", "1..2.3", " 1.2.3.4", "1.2.3.4 ",
        "::1::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8::", "12345::", "g::1", ":1", "1:", ":::", "1.2.3.4::",
        "fe80::1%", "fe80::1%a%b", "fe80::1%abcdefghijklmnop", "192.0.2.1%eth0", "::1.2.3", "a\u{0}b",
        "1.2.3.4\u{0}", "ünïcode", "\u{FFFD}", String(repeating: "1", count: 10_000), "internet", "2001:db8::/64",
    ])
    func rejectsWhatIsNoAddressWithATypedError(input: String) {
        #expect(throws: ReachabilityError.self) { try IPAddress(input) }
    }

    @Test func familiesBytesAndLinkLocal() throws {
        #expect(try IPAddress("192.0.2.1").bytes == [192, 0, 2, 1])
        #expect(try IPAddress("169.254.3.4").isLinkLocal)
        #expect(try IPAddress("fe80::1").isLinkLocal)
        #expect(try IPAddress("febf::1").isLinkLocal)
        #expect(try !IPAddress("fec0::1").isLinkLocal)
        #expect(try IPAddress("fe80::1%eth0").withoutZone.description == "fe80::1")
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
        #expect(IPAddress(bytes: [1, 2, 3, 4], zone: "eth0")?.zone == nil)
    }

    @Test func zonesOfUpToFifteenBytesAreKeptExactly() throws {
        let longest = "abcdefghijklmno"
        #expect(try IPAddress("fe80::1%\(longest)").zone == longest)
        #expect(try IPAddress("fe80::1%7").zone == "7")
        #expect(try IPAddress("fe80::1%eth0").description == "fe80::1%eth0")
        #expect(throws: ReachabilityError.self) { try IPAddress("fe80::1%\(longest)p") }
        #expect(IPAddress(bytes: [UInt8](repeating: 0, count: 16), zone: longest + "p") == nil)
        #expect(IPAddress(bytes: [UInt8](repeating: 0, count: 16), zone: "")?.zone == nil)
        #expect(try IPAddress("fe80::1%eth0") != IPAddress("fe80::1%eth1"))
        #expect(try IPAddress("fe80::1%eth0") != IPAddress("fe80::1"))
        #expect(try Set([IPAddress("fe80::1%eth0"), IPAddress("fe80::1%eth0"), IPAddress("fe80::1")]).count == 2)
    }

    @Test func bytesByteOrderAndWidthAgreeWithTheArrayForm() {
        var generator = SplitMix64(seed: 0xB17E5)
        for _ in 0..<5_000 {
            let width = Bool.random(using: &generator) ? 4 : 16
            // Mostly shared leading bytes, so that comparisons reach the second word.
            let first = (0..<width).map { _ in UInt8.random(in: 0...2, using: &generator) }
            let second = (0..<width).map { _ in UInt8.random(in: 0...2, using: &generator) }
            guard let a = IPAddress(bytes: first), let b = IPAddress(bytes: second) else {
                Issue.record("\(first) or \(second) refused")
                return
            }
            #expect(a.bytes == first)
            #expect(a.byteCount == width)
            #expect((0..<width).map { a[byte: $0] } == first)
            #expect(a.withUnsafeBytes { Array($0) } == first)
            #expect((a == b) == (first == second))
            #expect(IPAddress(networkOrder: first[...]) == a)
        }
    }

    @Test func prefixBoundsMaskTheHostBitsAtEveryLength() {
        var generator = SplitMix64(seed: 0x9F1E)
        for _ in 0..<2_000 {
            let width = Bool.random(using: &generator) ? 4 : 16
            let bytes = (0..<width).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let length = Int.random(in: -1...(width * 8 + 1), using: &generator)
            guard let address = IPAddress(bytes: bytes, zone: width == 16 ? "eth0" : nil) else {
                Issue.record("\(bytes) refused")
                return
            }
            // The oracle: byte by byte, the prefix's bits kept, the host bits cleared or set
            let kept = min(max(length, 0), width * 8)
            let masks = (0..<width).map { index -> UInt8 in
                let bits = min(max(kept - index * 8, 0), 8)
                return bits == 8 ? 0xFF : UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            }
            let (lowest, highest) = address.prefixBounds(length: length)
            #expect(lowest.bytes == zip(bytes, masks).map { $0 & $1 })
            #expect(highest.bytes == zip(bytes, masks).map { $0 | ~$1 })
            #expect(lowest.family == address.family && highest.family == address.family)
            #expect(lowest.zone == nil && highest.zone == nil)
            // And the prefix holds exactly what lies between them
            let prefix = IPPrefix(address: address, length: length)
            #expect(prefix.contains(lowest) && prefix.contains(highest) && prefix.contains(address))
        }
    }

    @Test func targetsParseTheCommandWords() throws {
        #expect(try ReachabilityTarget(parsing: "internet") == .internet)
        #expect(try ReachabilityTarget(parsing: "link-local") == .linkLocal)
        #expect(try ReachabilityTarget(parsing: "0.0.0.0") == .address(IPAddress("0.0.0.0")))
        #expect(try ReachabilityTarget(parsing: "example.com") == .host(HostName("example.com")))
        #expect(throws: ReachabilityError.self) { try ReachabilityTarget(parsing: "1.2.3") }
        #expect(throws: ReachabilityError.self) { try ReachabilityTarget(parsing: "fe80::zz") }
    }
}
