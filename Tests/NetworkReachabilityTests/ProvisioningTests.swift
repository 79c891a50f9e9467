import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// What a running monitor keeps of router advertisements over time.
struct AdvertisementLedgerTests {
    private let wellKnown = NAT64Prefix.wellKnown

    private func advertisement(prefixLifetime: Int?, dnsLifetime: Int? = nil) throws -> RouterAdvertisement {
        var advertisement = RouterAdvertisement(interfaceIndex: 2)
        if let prefixLifetime { advertisement.nat64Prefixes = [.init(prefix: wellKnown, lifetime: .seconds(prefixLifetime))] }
        if let dnsLifetime {
            advertisement.dnsServers = [try IPAddress("2001:db8::53")]
            advertisement.dnsLifetime = .seconds(dnsLifetime)
        }
        return advertisement
    }

    @Test func aRepeatedAdvertisementChangesNothingButPushesTheDeadlineOut() throws {
        var ledger = AdvertisementLedger()
        let changed1 = ledger.apply(try advertisement(prefixLifetime: 8), at: 1000)
        #expect(changed1)
        #expect(ledger.nextDeadline == 9000)
        let changed2 = ledger.apply(try advertisement(prefixLifetime: 8), at: 5000)
        #expect(!changed2)
        #expect(ledger.nextDeadline == 13000)
        let changed3 = ledger.expire(at: 12999)
        #expect(!changed3)
        #expect(ledger.summary.nat64Prefixes.map(\.prefix) == [wellKnown])
    }

    @Test func aPrefixLapsesAtItsDeadlineAndTheDNSServersAtTheirs() throws {
        var ledger = AdvertisementLedger()
        _ = ledger.apply(try advertisement(prefixLifetime: 8, dnsLifetime: 20), at: 0)
        let changed4 = ledger.expire(at: 8000)
        #expect(changed4)
        #expect(ledger.summary.nat64Prefixes.isEmpty)
        #expect(ledger.summary.dnsServers.count == 1)
        #expect(ledger.nextDeadline == 20000)
        let changed5 = ledger.expire(at: 20000)
        #expect(changed5)
        #expect(ledger.summary.dnsServers.isEmpty)
        #expect(ledger.nextDeadline == nil)
        let changed6 = ledger.expire(at: 99999)
        #expect(!changed6)
    }

    @Test func aZeroLifetimeWithdrawsAtOnceAndAnInfiniteDNSLifetimeNeverLapses() throws {
        var ledger = AdvertisementLedger()
        _ = ledger.apply(try advertisement(prefixLifetime: 1800, dnsLifetime: Int(UInt32.max)), at: 0)
        #expect(ledger.nextDeadline == 1_800_000)
        let changed7 = ledger.apply(try advertisement(prefixLifetime: 0), at: 10)
        #expect(changed7)
        #expect(ledger.summary.nat64Prefixes.isEmpty)
        #expect(ledger.nextDeadline == nil)
        #expect(ledger.summary.dnsServers.count == 1)
    }
}

/// DNS64 discovery as the evaluations drive it: once per IPv6-only network, late answers ignored.
struct ProvisioningDirectoryTests {
    /// A discovery stand-in that records each start and lets the test answer it.
    private final class Discoveries: Sendable {
        let pending = Locked<[@Sendable ([NAT64Prefix]) -> Void]>([])
        var count: Int { pending.withLock { $0.count } }
        func answer(_ index: Int, with prefixes: [NAT64Prefix]) { pending.withLock { $0[index] }(prefixes) }
    }

    private let first = ProvisioningDirectory.Network(interfaceIndex: 2, gateway: try? IPAddress("fe80::1"))
    private let second = ProvisioningDirectory.Network(interfaceIndex: 3, gateway: try? IPAddress("fe80::1"))

    private func directory() -> (ProvisioningDirectory, Discoveries) {
        let discoveries = Discoveries()
        let directory = ProvisioningDirectory { _, completion in discoveries.pending.withLock { $0.append(completion) } }
        return (directory, discoveries)
    }

    @Test func anIPv6OnlyNetworkIsDiscoveredOnceAndIsDiscoveringUntilTheAnswer() throws {
        let (directory, discoveries) = directory()
        let changes = Locked(0)
        directory.onChange { changes.withLock { $0 += 1 } }
        #expect(directory.provisions(onInterface: 2, ipv6OnlyNetwork: first).isDiscovering)
        #expect(directory.provisions(onInterface: 2, ipv6OnlyNetwork: first).isDiscovering)
        #expect(discoveries.count == 1)
        discoveries.answer(0, with: [.wellKnown])
        #expect(changes.withLock { $0 } == 1)
        let known = directory.provisions(onInterface: 2, ipv6OnlyNetwork: first)
        #expect(known.nat64Prefixes == [DiscoveredNAT64Prefix(prefix: .wellKnown, source: .dns64)])
        #expect(!known.isDiscovering)
    }

    @Test func anAnswerForAnOlderNetworkIsIgnoredAndLeavingIPv6OnlyForgetsThePrefix() throws {
        let (directory, discoveries) = directory()
        _ = directory.provisions(onInterface: 2, ipv6OnlyNetwork: first)
        _ = directory.provisions(onInterface: 3, ipv6OnlyNetwork: second)
        #expect(discoveries.count == 2)
        discoveries.answer(0, with: [.wellKnown])  // late: belongs to the first network
        #expect(directory.provisions(onInterface: 3, ipv6OnlyNetwork: second).nat64Prefixes.isEmpty)
        discoveries.answer(1, with: [try NAT64Prefix("2001:db8:122::/48")])
        let answered = directory.provisions(onInterface: 3, ipv6OnlyNetwork: second)
        #expect(answered.nat64Prefixes.map(\.prefix.description) == ["2001:db8:122::/48"])
        #expect(directory.provisions(onInterface: 3, ipv6OnlyNetwork: nil).nat64Prefixes.isEmpty)
        #expect(discoveries.count == 2)
    }

    @Test func advertisedPrefixesComeFirstAndOnlyForTheirInterface() throws {
        let (directory, discoveries) = directory()
        var advertisement = RouterAdvertisement(interfaceIndex: 2)
        let advertised = try NAT64Prefix("2001:db8:64::/96")
        advertisement.nat64Prefixes = [.init(prefix: advertised, lifetime: .seconds(600))]
        advertisement.captivePortal = "https://portal.example/api"
        #expect(directory.record(advertisement, at: 0))
        _ = directory.provisions(onInterface: 2, ipv6OnlyNetwork: first)
        discoveries.answer(0, with: [.wellKnown])
        let onTwo = directory.provisions(onInterface: 2, ipv6OnlyNetwork: first)
        #expect(onTwo.nat64Prefixes.map(\.source) == [.routerAdvertisement, .dns64])
        #expect(onTwo.nat64Prefixes.first?.lifetime == .seconds(600))
        #expect(onTwo.captivePortal == "https://portal.example/api")
        #expect(directory.provisions(onInterface: 5, ipv6OnlyNetwork: first).captivePortal == nil)
        #expect(directory.forgetInterface(2))
        #expect(directory.provisions(onInterface: 2, ipv6OnlyNetwork: first).nat64Prefixes.map(\.source) == [.dns64])
    }

    @Test func aResolverChangeAsksAgainOnlyOnAnIPv6OnlyNetwork() {
        let (directory, discoveries) = directory()
        directory.rediscover()
        #expect(discoveries.count == 0)
        _ = directory.provisions(onInterface: 2, ipv6OnlyNetwork: first)
        directory.rediscover()
        #expect(discoveries.count == 2)
    }
}
