import CNetlink
import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// What the queries learn of the kernel's tables and rules, against the real kernel.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct KernelQueriesInNamespaceTests {
    @Test func anEntryLookupNamesTheMatchedRoutesPrefixAndTable() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "add", "10.1.0.0/16", "via", TestNetwork.gatewayIPv4, "table", "100")
        try network.ip("rule", "add", "to", "10.1.2.0/24", "lookup", "100")
        let queries = KernelQueries(namespace: NetworkNamespace(named: network.name))
        defer { queries.close() }
        let answers = try queries.lookupRoutes([
            .entry(matching: IPAddress("10.9.0.1")), .path(to: IPAddress("10.9.0.1")), .entry(matching: IPAddress("10.1.2.3")),
            .entry(matching: IPAddress("198.51.100.1")),
        ])
        guard case .route(let byDefault) = answers[0], case .route(let path) = answers[1], case .route = answers[2]
        else {
            Issue.record("no routes: \(answers)")
            return
        }
        #expect(RouteSharing.matchedEntry(answers[0]) == .entry(table: 254, prefix: .all(.ipv4)))
        #expect(!byDefault.hasNextHopChoice && byDefault.gateway?.description == TestNetwork.gatewayIPv4)
        // The path names the destination itself, and the source the kernel picked
        #expect(path.destinationLength == 32 && path.preferredSource?.description == TestNetwork.hostIPv4)
        #expect(
            RouteSharing.matchedEntry(answers[2])
                == .entry(table: 100, prefix: .init(address: try IPAddress("10.1.0.0"), length: 16)))
        #expect(answers[3] == answers[0])
    }

    @Test func thePolicyIsTheDefaultUntilARuleOfItsOwnIsAdded() throws {
        let network = try TestNetwork(ipv4: true, ipv6: true)
        defer { network.remove() }
        let queries = KernelQueries(namespace: NetworkNamespace(named: network.name))
        defer { queries.close() }
        #expect(try queries.hasDefaultPolicyRules(.ipv4))
        #expect(try queries.hasDefaultPolicyRules(.ipv6))
        try network.ip("rule", "add", "pref", "40000", "lookup", "100")
        #expect(try !queries.hasDefaultPolicyRules(.ipv4))
        #expect(try queries.hasDefaultPolicyRules(.ipv6))
        try network.ip("rule", "del", "pref", "40000")
        try network.ip("rule", "add", "fwmark", "1", "lookup", "main")  // the same table, selected by mark
        #expect(try !queries.hasDefaultPolicyRules(.ipv4))
    }

    @Test func aTablesDumpListsItsOwnRoutesOnly() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.addRoutes(50)  // into main
        let queries = KernelQueries(namespace: NetworkNamespace(named: network.name))
        defer { queries.close() }
        #expect(try queries.routes(family: .ipv4, table: RouteSharing.defaultTable, type: nil).map(\.prefix).isEmpty)
        try network.ip("route", "add", "10.7.0.0/16", "via", TestNetwork.gatewayIPv4, "table", "default")
        try network.ip("route", "add", "unreachable", "default", "table", "default")
        let prefixes = try queries.routes(family: .ipv4, table: RouteSharing.defaultTable, type: nil).map(\.prefix)
        #expect(prefixes.count == 2)
        #expect(prefixes.contains(.init(address: try IPAddress("10.7.0.0"), length: 16)))
        #expect(prefixes.contains(.all(.ipv4)))
        #expect(try queries.routes(family: .ipv6, table: RouteSharing.defaultTable, type: nil).map(\.prefix).isEmpty)
    }

    @Test func aDumpOfOneTypeListsThoseRoutesInEveryTable() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.addRoutes(50)  // unicast, into main
        try network.ip("route", "add", "throw", "10.1.0.0/16")
        try network.ip("route", "add", "throw", "10.2.0.0/16", "table", "default")
        try network.ip("route", "add", "unreachable", "10.3.0.0/16")
        let queries = KernelQueries(namespace: NetworkNamespace(named: network.name))
        defer { queries.close() }
        let throwing = try queries.routes(family: .ipv4, table: nil, type: UInt8(RTN_THROW))
        #expect(
            Set(throwing.map { "\($0.prefix.address)/\($0.prefix.length) \($0.table)" }) == [
                "10.1.0.0/16 254", "10.2.0.0/16 253",
            ])
        #expect(try queries.routes(family: .ipv4, table: nil, type: UInt8(RTN_BLACKHOLE)).isEmpty)
    }
}
