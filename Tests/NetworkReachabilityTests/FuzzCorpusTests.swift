import CNetlink
import Foundation
import Testing
import TestSupport

@testable import NetworkReachabilityCore
@_spi(Tooling) @testable import NetworkReachabilityLinux

/// The fuzz corpus and every input a fuzzer ever crashed on, replayed through the same parsers.
struct FuzzCorpusTests {
    @Test func everyDatagramCapturedFromTheKernelParsesWithNothingDropped() throws {
        let corpus = FuzzInputs.read("corpus/netlink")
        try #require(corpus.count >= 40, "the committed corpus is missing")
        var parsedByType: [UInt16: Int] = [:]
        for (name, bytes) in corpus {
            let (messages, broken) = NetlinkMessage.split(bytes[...])
            #expect(broken == 0, "\(name)")
            for message in messages {
                // sock_diag's answers (the quality reader's) are read as reports of TCP sockets, all else as rtnetlink.
                if name.hasPrefix("sockdiag-") {
                    #expect(FlowReport(message) != nil || message.isDone, "\(name): type \(message.type)")
                } else {
                    #expect(KernelMessage(message) != nil, "\(name): type \(message.type)")
                }
                parsedByType[message.type, default: 0] += 1
            }
        }
        // Links, addresses, routes, rules, router advertisement options and neighbours all occur, so all parsers ran.
        for type in [
            RTM_NEWLINK, RTM_NEWADDR, RTM_DELADDR, RTM_NEWROUTE, RTM_DELROUTE, RTM_NEWRULE, RTM_NEWNDUSEROPT, RTM_NEWNEIGH,
            RTM_DELNEIGH,
        ] {
            #expect(parsedByType[UInt16(type), default: 0] > 0, "no message of type \(type)")
        }
    }

    @Test func theCapturedNeighboursNameTheGatewaysAndTheChangedMACAddresses() throws {
        let neighbours = FuzzInputs.read("corpus/netlink").filter { $0.name.contains("neighbour") }
            .flatMap { NetlinkMessage.split($0.bytes[...]).messages }
            .compactMap { message -> Neighbour? in
                guard case .neighbour(let neighbour) = KernelMessage(message) else { return nil }
                return neighbour
            }
        let gateway = try IPAddress("192.0.2.1")
        #expect(neighbours.contains { $0.address == gateway && $0.linkLayerAddress?.count == 6 })
        let added = try IPAddress("192.0.2.9")
        let byHand = neighbours.filter { $0.address == added }
        #expect(byHand.compactMap(\.linkLayerAddress).contains([2, 0, 0, 0, 0, 0x0a]))
        #expect(byHand.contains { $0.isDeletion })
    }

    @Test func theCapturedRouterAdvertisementCarriesWhatTheRouterSent() throws {
        let advertisements = FuzzInputs.read("corpus/netlink").flatMap { NetlinkMessage.split($0.bytes[...]).messages }
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
        for (name, bytes) in FuzzInputs.read("regressions/netlink") {
            let (parsed, malformed) = KernelBytes.tally(datagram: bytes[...])
            #expect(parsed + malformed >= 0, "\(name)")
            _ = KernelBytes.attributeCount(bytes[...])
        }
        for (name, bytes) in FuzzInputs.read("regressions/address") {
            let text = String(decoding: bytes, as: UTF8.self)
            if let address = try? IPAddress(text) { #expect((try? IPAddress(address.description)) == address, "\(name)") }
            _ = try? ReachabilityTarget(parsing: text)
        }
    }
}
