import NetworkReachabilityCore
import CNetlink

extension RouteSharing {
    /// The IPv4 routes that refuse packets or pass them on instead of carrying them (`unreachable`, `prohibit`,
    /// `blackhole`, `throw`) in the tables the default policy looks up (`local`, `main`, `default`). A lookup that meets
    /// a `throw` route ends as if nothing matched (`ENETUNREACH`); the others end with errors of their own here
    /// (`EHOSTUNREACH`, `EACCES`, `EINVAL`), which keep a target out of every group, and are kept all the same so
    /// that nothing rests on those errors. Targets that matched nothing are answered together only where none of these
    /// routes lies strictly inside their prefix around them (see ``RouteSharing/Group``).
    ///
    /// Read by dump when first needed, then kept from route notifications: the subscription's thread applies every
    /// route message. Unknown again after notifications were lost. A route notified while its dump was read may be
    /// counted twice, which only keeps more targets apart, never fewer.
    struct RefusingRoutes {
        /// What tells one route from another in its table.
        private struct Key: Hashable {
            let table: UInt32
            let prefix: IPPrefix
            let tos: UInt8
            let priority: UInt32

            init(_ route: Route) {
                (table, prefix, tos, priority) = (route.table, route.prefix, route.tos, route.priority ?? 0)
            }
        }

        /// Refusing routes by key (a route may be appended beside another of the same key); `nil` while unknown.
        private var counts: [Key: Int]?

        /// The route types that refuse packets or pass them on, as `RTN_*` values.
        static let types = [RTN_UNREACHABLE, RTN_PROHIBIT, RTN_BLACKHOLE, RTN_THROW].map { UInt8($0) }

        /// The refusing routes' prefixes; read with `read` (every IPv4 route of one type) when unknown.
        mutating func prefixes(
            reading read: (UInt8) throws(ReachabilityError) -> [Route]
        ) throws(ReachabilityError) -> [IPPrefix] {
            if counts == nil {
                var found: [Key: Int] = [:]
                for type in Self.types {
                    for route in try read(type) where Self.isRefusing(route) { found[Key(route), default: 0] += 1 }
                }
                counts = found
            }
            return counts?.keys.map(\.prefix) ?? []
        }

        /// Applies a route notification: `deleted` for `RTM_DELROUTE`, `replacing` for an `RTM_NEWROUTE` with
        /// `NLM_F_REPLACE` (which takes the place of every route of its key).
        mutating func apply(_ route: Route, deleted: Bool, replacing: Bool) {
            guard counts != nil, route.family == .ipv4 else { return }
            let key = Key(route)
            if replacing { counts?[key] = nil }
            guard Self.isRefusing(route) else { return }
            let count = (counts?[key] ?? 0) + (deleted ? -1 : 1)
            counts?[key] = count > 0 ? count : nil
        }

        /// Notifications were lost: read everything again when next needed.
        mutating func forget() { counts = nil }

        /// The tables the default policy looks up.
        private static let tables = PolicyRuleMessage.defaultPolicy(.ipv4).map(\.table)

        /// Whether `route` is one of these: IPv4, refusing, in a table the default policy looks up. Asked of every route
        /// notification while the routes are known, so it allocates nothing.
        private static func isRefusing(_ route: Route) -> Bool {
            let refuses: Bool =
                switch route.type {
                case .unreachable, .prohibit, .blackhole, .throw: true
                default: false
                }
            return route.family == .ipv4 && refuses && tables.contains(route.table)
        }
    }
}
