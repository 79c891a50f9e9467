import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// The refusing routes the monitor keeps: read once, then kept from notifications.
struct RefusingRoutesTests {
    private static func route(
        _ destination: String, _ length: UInt8, type: Route.RouteType = .unreachable,
        table: UInt32 = RouteSharing.mainTable, family: Int32 = AF_INET, priority: UInt32? = nil
    ) throws -> Route {
        var route = Route(
            family: family == AF_INET6 ? .ipv6 : .ipv4, destinationLength: length, table: table, type: type,
            destination: try IPAddress(destination), gateway: nil, preferredSource: nil, outputInterface: nil)
        route.priority = priority
        return route
    }

    private static func prefixes(_ routes: inout RouteSharing.RefusingRoutes, dump: [Route] = []) throws -> Set<String> {
        var asked: [UInt8] = []
        let prefixes = try routes.prefixes { type in
            asked.append(type)
            return dump.filter { Route.RouteType(type) == $0.type }
        }
        if !asked.isEmpty { #expect(asked == RouteSharing.RefusingRoutes.types) }
        return Set(prefixes.map { "\($0.address)/\($0.length)" })
    }

    @Test func theDumpSeedsThemAndNotificationsKeepThem() throws {
        var routes = RouteSharing.RefusingRoutes()
        // Unknown yet: a notification changes nothing
        routes.apply(try Self.route("10.9.0.0", 16), deleted: false, replacing: false)
        let dump = [
            try Self.route("10.0.0.16", 28), try Self.route("10.1.0.0", 16, type: .throw),
            try Self.route("10.2.0.0", 16, type: .unicast),  // carries packets
            try Self.route("10.3.0.0", 16, table: 100),  // a table the default policy does not look up
            try Self.route("2001:db8::", 32, family: AF_INET6),
        ]
        #expect(try Self.prefixes(&routes, dump: dump) == ["10.0.0.16/28", "10.1.0.0/16"])
        // Known now: added, deleted, two of one key, replaced by a unicast route
        routes.apply(try Self.route("10.4.0.0", 16, type: .prohibit), deleted: false, replacing: false)
        routes.apply(try Self.route("10.0.0.16", 28), deleted: true, replacing: false)
        routes.apply(try Self.route("10.5.0.0", 16, type: .blackhole), deleted: false, replacing: false)
        routes.apply(try Self.route("10.5.0.0", 16, type: .blackhole), deleted: false, replacing: false)
        routes.apply(try Self.route("10.5.0.0", 16, type: .blackhole), deleted: true, replacing: false)
        routes.apply(try Self.route("10.1.0.0", 16, type: .unicast), deleted: false, replacing: true)
        routes.apply(try Self.route("10.6.0.0", 16, type: .unicast), deleted: false, replacing: false)
        // Another metric is another route
        routes.apply(try Self.route("10.4.0.0", 16, type: .prohibit, priority: 5), deleted: true, replacing: false)
        #expect(try Self.prefixes(&routes) == ["10.4.0.0/16", "10.5.0.0/16"])
        // Lost notifications: read again
        routes.forget()
        #expect(try Self.prefixes(&routes, dump: dump) == ["10.0.0.16/28", "10.1.0.0/16"])
    }
}
