import CNetlink

/// The table entry a target's destination matched when it was last evaluated (`ip route get … fibmatch`): its
/// table and prefix. Targets that matched the same entry get the same answer after a change to that entry alone,
/// as far as ``SharedRouteGroup`` lays down.
package struct MatchedRoute: Sendable, Equatable {
    /// The routing table the entry is in (`main` is 254).
    package let table: UInt32
    /// The entry's destination prefix.
    package let prefix: NetworkChanges.Prefix

    package init(table: UInt32, prefix: NetworkChanges.Prefix) {
        self.table = table
        self.prefix = prefix
    }

    /// The entry a matched-route lookup answered with.
    init(_ route: RouteMessage) {
        let family: IPAddress.Family = route.family == UInt8(AF_INET6) ? .ipv6 : .ipv4
        let address = route.destination ?? NetworkChanges.Prefix.all(family).address
        self.init(table: route.table, prefix: NetworkChanges.Prefix(address: address, length: Int(route.destinationLength)))
    }

    /// The table IPv4's default rules look up after `main`.
    static let defaultTable = UInt32(RT_TABLE_DEFAULT.rawValue)
    /// The table most routes are in.
    static let mainTable = UInt32(RT_TABLE_MAIN.rawValue)
}
