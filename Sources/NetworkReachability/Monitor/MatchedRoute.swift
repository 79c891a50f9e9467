import CNetlink
import Glibc

/// The table entry a target's destination matched when it was last evaluated (`ip route get … fibmatch`): its
/// table and prefix. Targets that matched the same entry get the same answer after a change to that entry alone,
/// as far as ``SharedRouteGroup`` lays down.
package struct MatchedRoute: Sendable, Equatable {
    // The prefix first: the table then fits in its padding (40 bytes, not 56), and each target keeps one.

    /// The entry's destination prefix.
    package let prefix: NetworkChanges.Prefix
    /// The routing table the entry is in (`main` is 254).
    package let table: UInt32

    package init(table: UInt32, prefix: NetworkChanges.Prefix) {
        self.table = table
        self.prefix = prefix
    }

    /// The entry a matched-route lookup answered with.
    init(_ route: RouteMessage) {
        self.init(table: route.table, prefix: route.prefix)
    }

    /// The table IPv4's default rules look up after `main`.
    static let defaultTable = UInt32(RT_TABLE_DEFAULT.rawValue)
    /// The table most routes are in.
    static let mainTable = UInt32(RT_TABLE_MAIN.rawValue)
}

/// What a target's entry lookup found when it was last evaluated.
package enum RouteMatch: Sendable, Equatable {
    /// The table entry its destination matched.
    case entry(MatchedRoute)
    /// No entry: the tables the policy looked up hold nothing for it, or only a route that refuses it or passes it
    /// on (`ENETUNREACH`).
    case none

    /// What an entry lookup's answer says; `nil` for a failure that names a refusing route of its own
    /// (`EHOSTUNREACH`, `EACCES`, `EINVAL`), which this does not tell apart.
    init?(_ answer: RouteAnswer) {
        switch answer {
        case .route(let route): self = .entry(MatchedRoute(route))
        case .noRoute(let code) where code == ENETUNREACH: self = .none
        case .noRoute: return nil
        }
    }
}
