/// The answer to a route lookup.
package enum RouteAnswer: Sendable, Equatable {
    /// The route a packet would take.
    case route(Route)
    /// No route carries the packet, and why.
    case noRoute(RouteRefusal)
}

/// One lookup of several sent together: the path a packet to the address would take (`ip route get`), or the table entry
/// it matches (`ip route get … fibmatch`), whose prefix and table say which changes can move the answer.
package enum RouteLookup: Sendable, Equatable {
    case path(to: IPAddress)
    case entry(matching: IPAddress)
}

/// Why a lookup found no route that carries the packet; on Linux, the errno the lookup ends with.
package enum RouteRefusal: Sendable, Hashable {
    /// Nothing matched the destination, or a `throw` route passed it on (`ENETUNREACH`).
    case nothingMatched
    /// An `unreachable` route matched (`EHOSTUNREACH`).
    case unreachable
    /// A `prohibit` route matched (`EACCES`).
    case prohibited
    /// A `blackhole` route matched (`EINVAL`).
    case blackhole
    /// The lookup failed otherwise, with this platform error number.
    case other(Int32)
}

/// What the evaluation asks a kernel: route lookups, the addresses, and interface names.
///
/// ``KernelQueries`` asks the real kernel over rtnetlink; a simulated network answers the same questions from
/// state a test sets, so the evaluation (the semantics) is the same code on both.
package protocol RouteQuerying: AnyObject, Sendable {
    /// Which route a packet to `destination` would take (`ip route get`), optionally from `source` or out of
    /// the interface with `interfaceIndex`.
    func lookupRoute(to destination: IPAddress, from source: IPAddress?, interfaceIndex: Int?) throws(ReachabilityError)
        -> RouteAnswer
    /// Which route a packet to `destination` would take out of the interface with `interfaceIndex`; no route when
    /// no table entry sends it through that interface (never the on-link guess the kernel makes for a pinned lookup).
    func lookupRoute(to destination: IPAddress, from source: IPAddress?, outOf interfaceIndex: Int) throws(ReachabilityError)
        -> RouteAnswer
    /// The table entry a packet to `destination` matches (`ip route get … fibmatch`): a multipath route with all
    /// its next hops, where a path lookup names the one it took.
    func matchedRoute(to destination: IPAddress) throws(ReachabilityError) -> RouteAnswer
    /// Several lookups, paths or matched table entries, in one round trip, answers in order.
    func lookupRoutes(_ lookups: [RouteLookup]) throws(ReachabilityError) -> [RouteAnswer]
    /// The routes to several destinations in one round trip, answers in order.
    func lookupRoutes(to destinations: [IPAddress]) throws(ReachabilityError) -> [RouteAnswer]
    /// The routes a packet to `destination` takes when it carries a mark the platform's policy sends past tunnels,
    /// in the policy's order (Linux: the firewall marks of rules such as wg-quick's `not fwmark 51820`); empty
    /// without such a policy. The first answer that leaves through no tunnel is the link under one.
    func markedRoutes(to destination: IPAddress) throws(ReachabilityError) -> [Route]
    /// The main table's default routes through each of `interfaces` that has one, with their metrics: those a split
    /// default (OpenVPN's `0.0.0.0/1` and `128.0.0.0/1`) shadows, and every leg of a multipath default.
    func defaultRoutes(to destination: IPAddress, outOf interfaces: [Int]) throws(ReachabilityError) -> [DefaultRoute]
    /// Every address of every link.
    func addresses() throws(ReachabilityError) -> [InterfaceAddress]
    /// The index of the link called `name`, or `nil` when there is none.
    func linkIndex(named name: String) throws(ReachabilityError) -> Int?
}

/// Where the evaluation learns about links: a cache link notifications keep exact (synchronous reads), or the
/// table the subscription keeps current.
package protocol LinkSource {
    /// The link with `index`, or `nil` when there is none.
    func link(index: Int) throws(ReachabilityError) -> Link?
    /// Every link.
    func allLinks() throws(ReachabilityError) -> [Link]
}

/// Describes a link as a public ``NetworkInterface``, with its kind of link.
package protocol InterfaceClassifying: AnyObject, Sendable {
    /// The interface `link` is.
    func interface(for link: Link) -> NetworkInterface
}

/// A default route of the main table out of one interface (``RouteQuerying/defaultRoutes(to:outOf:)``): the path a
/// lookup pinned there takes, and the metric of the table entry it matched.
package struct DefaultRoute: Sendable, Equatable {
    package var route: Route
    package var metric: UInt32

    package init(route: Route, metric: UInt32) {
        self.route = route
        self.metric = metric
    }
}
