import CNetlink
import Foundation
import Testing

@_spi(Tooling) @testable import NetworkReachability

/// The fuzz corpus and every input a fuzzer ever crashed on, replayed through the same parsers.
struct FuzzCorpusTests {
    private static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    private static func inputs(_ folder: String) -> [(name: String, bytes: [UInt8])] {
        let directory = fuzzDirectory.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        // Hidden files (.keep) are not inputs; skipping them also avoids FoundationEssentials leaking 4 KiB per
        // empty file read, which AddressSanitizer reports.
        return names.filter { !$0.hasPrefix(".") }.sorted().compactMap { name in
            (try? Data(contentsOf: directory.appendingPathComponent(name))).map { (name, Array($0)) }
        }
    }

    @Test func everyDatagramCapturedFromTheKernelParsesWithNothingDropped() throws {
        let corpus = Self.inputs("corpus/netlink")
        try #require(corpus.count >= 40, "the committed corpus is missing")
        var parsedByType: [UInt16: Int] = [:]
        for (name, bytes) in corpus {
            let (messages, broken) = NetlinkMessage.split(bytes[...])
            #expect(broken == 0, "\(name)")
            for message in messages {
                #expect(KernelMessage(message) != nil, "\(name): type \(message.type)")
                parsedByType[message.type, default: 0] += 1
            }
        }
        // Links, addresses, routes, rules and router advertisement options all occur, so all parsers ran.
        for type in [RTM_NEWLINK, RTM_NEWADDR, RTM_DELADDR, RTM_NEWROUTE, RTM_DELROUTE, RTM_NEWRULE, RTM_NEWNDUSEROPT] {
            #expect(parsedByType[UInt16(type), default: 0] > 0, "no message of type \(type)")
        }
    }

    @Test func theCapturedRouterAdvertisementCarriesWhatTheRouterSent() throws {
        let advertisements = Self.inputs("corpus/netlink").flatMap { NetlinkMessage.split($0.bytes[...]).messages }
            .compactMap { message -> RouterAdvertisement? in
                guard case .routerAdvertisement(let advertisement) = KernelMessage(message) else { return nil }
                return advertisement
            }
        // The kernel passes each option on in a message of its own; folded, they say what the router sent.
        #expect(advertisements.count == 3)
        let summary = RouterAdvertisementSummary(folding: advertisements)
        #expect(summary.nat64Prefixes.map(\.prefix) == [NAT64Prefix.wellKnown])
        #expect(summary.dnsServers.map(\.description) == ["2001:db8::53"])
        #expect(summary.captivePortal == "https://portal.example/api")
    }

    @Test func everyInputAFuzzerCrashedOnIsNowHandled() {
        for (name, bytes) in Self.inputs("regressions/netlink") {
            let (parsed, malformed) = KernelBytes.tally(datagram: bytes[...])
            #expect(parsed + malformed >= 0, "\(name)")
            _ = KernelBytes.attributeCount(bytes[...])
        }
        for (name, bytes) in Self.inputs("regressions/address") {
            let text = String(decoding: bytes, as: UTF8.self)
            if let address = try? IPAddress(text) { #expect((try? IPAddress(address.description)) == address, "\(name)") }
            _ = try? ReachabilityTarget(parsing: text)
        }
    }
}
