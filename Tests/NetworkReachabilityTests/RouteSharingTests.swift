import CNetlink
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

/// Which targets of a pass one lookup may answer together, and when the kernel's answer for one of them holds
/// for all: pure rules, checked against the kernel in `IncrementalEvaluationInNamespaceTests`.
struct RouteSharingTests {
    private typealias Group = RouteSharing.Group
    private static let main = RouteSharing.mainTable
    private static func prefix(_ address: String, _ length: Int) throws -> IPPrefix {
        IPPrefix(address: try IPAddress(address), length: length)
    }
    private static func routeChanges(_ prefixes: IPPrefix...) -> NetworkChanges {
        var changes = NetworkChanges()
        for prefix in prefixes { changes.recordRoute(prefix) }
        return changes
    }
    private static func addresses(_ count: Int, in base: String = "10.0.0.") throws -> [ReachabilityTarget] {
        try (1...count).map { .address(try IPAddress("\(base)\($0)")) }
    }
    /// The pass's targets, each with a previous answer that matched `matches`' entry; `nil` among `matches`: never
    /// asked; `marked`: due for a reason of its own.
    private static func due(
        _ targets: [ReachabilityTarget], _ matches: [MatchedEntry?], marked: Set<Int> = []
    ) -> [DueTarget] {
        zip(targets, matches).enumerated().map { position, pair in
            DueTarget(pair.0, previous: marked.contains(position) ? nil : TargetDependency(backendNote: pair.1))
        }
    }
    private static func groups(
        _ targets: [ReachabilityTarget], _ matches: [MatchedEntry?], marked: Set<Int> = [], after changes: NetworkChanges
    ) -> [Group] {
        RouteSharing.groups(of: due(targets, matches, marked: marked), after: changes)
    }

    @Test func aMatchedEntryIsNotedWithoutAnAllocation() {
        // An existential holds up to three words inline; a larger note would be boxed on the heap for every target.
        #expect(MemoryLayout<MatchedEntry>.size <= 3 * MemoryLayout<Int>.size)
        #expect(MemoryLayout<MatchedEntry>.alignment <= MemoryLayout<Int>.alignment)
    }

    @Test func targetsThatMatchedAChangedRouteFormOneGroupPerPrefix() throws {
        let all = try Self.prefix("0.0.0.0", 0)
        let net = try Self.prefix("10.1.0.0", 16)
        let targets = try Self.addresses(10) + Self.addresses(10, in: "10.1.0.")
        let matches = targets.indices.map { MatchedEntry.entry(table: Self.main, prefix: $0 < 10 ? all : net) }
        let groups = Self.groups(targets, matches, after: Self.routeChanges(all, net))
        #expect(
            groups == [
                Group(prefix: all, matchedNothing: false, positions: Array(0..<10)),
                Group(prefix: net, matchedNothing: false, positions: Array(10..<20)),
            ])
    }

    /// Members of two groups in turn: each joins its own, whichever group the one before it joined.
    @Test func membersOfTwoGroupsInTurnEachJoinTheirOwn() throws {
        let all = try Self.prefix("0.0.0.0", 0)
        let net = try Self.prefix("10.1.0.0", 16)
        let targets = try zip(Self.addresses(10), Self.addresses(10, in: "10.1.0.")).flatMap { [$0, $1] }
        let matches = targets.indices.map {
            MatchedEntry.entry(table: Self.main, prefix: $0.isMultiple(of: 2) ? all : net)
        }
        let groups = Self.groups(targets, matches, after: Self.routeChanges(all, net))
        #expect(
            groups == [
                Group(prefix: all, matchedNothing: false, positions: Array(stride(from: 0, to: 20, by: 2))),
                Group(prefix: net, matchedNothing: false, positions: Array(stride(from: 1, to: 20, by: 2))),
            ])
    }

    /// Prefixes are equal exactly when each lies inside the other: they cover the same addresses.
    @Test func prefixesAreEqualExactlyWhenEachLiesInsideTheOther() {
        var generator = SplitMix64(seed: 0x5A4E)
        for _ in 0..<5_000 {
            func randomPrefix() -> IPPrefix {
                let address = IPAddress(bytes: [10, UInt8.random(in: 0...1, using: &generator), 0, 0])!
                return IPPrefix(address: address, length: Int.random(in: 6...17, using: &generator))
            }
            let (a, b) = (randomPrefix(), randomPrefix())
            #expect((a == b) == (a.lies(inside: b) && b.lies(inside: a)), "\(a) \(b)")
        }
    }

    @Test func targetsThatMatchedNothingGroupUnderTheNarrowestChangedPrefixAroundThem() throws {
        let all = try Self.prefix("0.0.0.0", 0)
        let net = try Self.prefix("10.1.0.0", 16)
        let targets = try Self.addresses(10) + Self.addresses(10, in: "10.1.0.") + Self.addresses(10, in: "10.2.0.")
        var matches = targets.map { _ in MatchedEntry.none as MatchedEntry? }
        for position in 20..<30 { matches[position] = .entry(table: Self.main, prefix: all) }
        let groups = Self.groups(targets, matches, after: Self.routeChanges(all, net))
        #expect(
            groups == [
                Group(prefix: all, matchedNothing: true, positions: Array(0..<10)),
                Group(prefix: net, matchedNothing: true, positions: Array(10..<20)),
                Group(prefix: all, matchedNothing: false, positions: Array(20..<30)),
            ])
        // Outside every changed prefix, nothing changed for them.
        #expect(Self.groups(targets, matches, after: Self.routeChanges(net)).map(\.positions) == [Array(10..<20)])
    }

    @Test func aTargetThatCannotShareStaysOutOfTheGroup() throws {
        let all = try Self.prefix("0.0.0.0", 0)
        var targets = try Self.addresses(16)
        targets += [
            .address(try IPAddress("127.0.0.9")),
            .address(try IPAddress("224.0.0.9")), .address(try IPAddress("255.255.255.255")),
            .address(try IPAddress("0.1.2.3")), .address(try IPAddress("2001:db8::9")),
            .address(try IPAddress("fe80::9%eth0")), .internet,
        ]
        var matches = targets.map { _ in MatchedEntry.entry(table: Self.main, prefix: all) as MatchedEntry? }
        matches[0] = nil  // never asked, or its lookup failed with a refusal of its own
        matches[1] = .entry(table: 100, prefix: all)  // another table
        matches[2] = .entry(table: Self.main, prefix: try Self.prefix("10.0.0.0", 8))  // a route not changed
        // Target 3 is new, or its DNS64 moved; a narrower route changed in the same batch around target 5 (10.0.0.5).
        let changes = Self.routeChanges(all, try Self.prefix("10.0.0.5", 32))
        let groups = Self.groups(targets, matches, marked: [3], after: changes)
        #expect(groups.map(\.positions) == [Array(5..<16)])
    }

    @Test func noGroupFormsBesideALinkOrAddressChangeOrBelowTheMinimum() throws {
        let all = try Self.prefix("0.0.0.0", 0)
        let targets = try Self.addresses(RouteSharing.minimumGroupSize)
        let matched = targets.map { _ in MatchedEntry.entry(table: Self.main, prefix: all) as MatchedEntry? }
        #expect(Self.groups(targets, matched, after: Self.routeChanges(all)).count == 1)
        var withLink = Self.routeChanges(all)
        withLink.recordLink(3)
        var withAddress = Self.routeChanges(all)
        withAddress.recordAddress(try IPAddress("192.0.2.7"), onInterface: 3)
        for changes in [withLink, withAddress, .everything, NetworkChanges()] {
            #expect(Self.groups(targets, matched, after: changes).isEmpty)
        }
        #expect(Self.groups(Array(targets.dropLast()), Array(matched.dropLast()), after: Self.routeChanges(all)).isEmpty)
    }

    // MARK: - The representative's answer

    private static func route(
        _ destination: String?, _ length: UInt8, table: UInt32 = main, type: Route.RouteType = .unicast,
        gateway: String? = "192.0.2.1", source: String? = nil, nextHopChoice: Bool = false
    ) throws -> Route {
        var route = Route(
            family: .ipv4, destinationLength: length, table: table, type: type,
            destination: try destination.map { try IPAddress($0) }, gateway: try gateway.map { try IPAddress($0) },
            preferredSource: try source.map { try IPAddress($0) }, outputInterface: 2)
        route.hasNextHopChoice = nextHopChoice
        return route
    }

    @Test func aSharedAnswerIsTheSameFailureOrAPathThatFollowsAWideEnoughEntry() throws {
        let previous = try Self.prefix("10.0.0.0", 8)
        let path = RouteAnswer.route(try Self.route("10.0.0.1", 32, source: "192.0.2.2"))
        let shared = { (entry: RouteAnswer, path: RouteAnswer) in
            RouteSharing.sharedAnswer(entry: entry, path: path, after: previous)
        }
        // The same failure, or another; only ENETUNREACH is "no entry"
        let unreachable = RouteAnswer.noRoute(.nothingMatched)
        let refused = RouteAnswer.noRoute(.unreachable)
        #expect(shared(unreachable, unreachable)?.answer == unreachable)
        #expect(shared(unreachable, unreachable)?.match == MatchedEntry.none)
        #expect(shared(refused, refused)?.answer == refused)
        #expect(shared(refused, refused).map { $0.match == nil } == true)
        #expect(shared(unreachable, refused) == nil)
        // A wider entry, or the same prefix; the entry is what the members match from now on
        let wider = try Self.route(nil, 0)
        let answer = try #require(shared(.route(wider), path))
        #expect(answer.answer == path)
        #expect(answer.match == .entry(table: Self.main, prefix: try Self.prefix("0.0.0.0", 0)))
        #expect(shared(.route(try Self.route("10.0.0.0", 8)), path) != nil)
        // Narrower than what they matched: the table changed since the batch
        #expect(shared(.route(try Self.route("10.0.0.0", 24)), path) == nil)
        // Several next hops, or a type the kernel routes per destination
        #expect(shared(.route(try Self.route(nil, 0, nextHopChoice: true)), path) == nil)
        #expect(shared(.route(try Self.route(nil, 0, type: .local)), path) == nil)
        // A path that does not follow the entry
        #expect(shared(.route(try Self.route(nil, 0, gateway: "192.0.2.9")), path) == nil)
        #expect(shared(.route(try Self.route(nil, 0, source: "192.0.2.3")), path) == nil)
        #expect(shared(.route(wider), unreachable) == nil)
    }
}
