/// The kernel's answer to a route lookup.
enum RouteAnswer: Sendable, Equatable {
    /// The route the kernel would use.
    case route(RouteMessage)
    /// The lookup failed with this errno (`ENETUNREACH`, `EHOSTUNREACH`, `EACCES`, `EINVAL`…).
    case noRoute(errno: Int32)
}

/// One lookup of a batch: the path a packet to the address would take (`ip route get`), or the table entry
/// it matches (`ip route get … fibmatch`), whose prefix and table say which changes can move the answer.
enum RouteLookup: Sendable, Equatable {
    case path(to: IPAddress)
    case entry(matching: IPAddress)
}

/// What the evaluation asks a kernel: route lookups, the addresses, and interface names.
///
/// ``KernelQueries`` asks the real kernel over rtnetlink; a simulated network answers the same questions from
/// state a test sets, so the evaluation (the semantics) is the same code on both.
protocol RouteQuerying: AnyObject, Sendable {
    /// Which route a packet to `destination` would take (`ip route get`), optionally from `source` or out of
    /// the interface with `interfaceIndex`.
    func lookupRoute(to destination: IPAddress, from source: IPAddress?, interfaceIndex: Int?) throws(ReachabilityError)
        -> RouteAnswer
    /// The routes to several destinations, answers in order.
    func lookupRoutes(to destinations: [IPAddress]) throws(ReachabilityError) -> [RouteAnswer]
    /// Several lookups in one round trip, answers in order.
    func lookupRoutes(_ lookups: [RouteLookup]) throws(ReachabilityError) -> [RouteAnswer]
    /// Whether `family`'s policy rules are the kernel's defaults (``PolicyRuleMessage/areDefaults(_:family:)``).
    func hasDefaultPolicyRules(_ family: IPAddress.Family) throws(ReachabilityError) -> Bool
    /// The destination prefixes of `family`'s routes in `table`.
    func routePrefixes(inTable table: UInt32, family: IPAddress.Family) throws(ReachabilityError) -> [NetworkChanges.Prefix]
    /// A mark of the changes that could alter a route answer, as far as this client has been told of them: what
    /// was concluded from answers asked after a mark was taken still holds while the mark stays the same.
    /// `nil` when the client cannot tell: then nothing may outlive the lookups it came from.
    func changeMark() throws(ReachabilityError) -> Int?
    /// Every address of every link.
    func addresses() throws(ReachabilityError) -> [AddressMessage]
    /// The index of the link called `name`, or `nil` when there is none.
    func linkIndex(named name: String) throws(ReachabilityError) -> Int?
}

/// Describes a link as a public ``NetworkInterface``, with its kind of link.
protocol InterfaceClassifying: AnyObject, Sendable {
    /// The interface `link` is.
    func interface(for link: LinkMessage) -> NetworkInterface
    /// Only the kind of interface `link` is: all its flags need, without describing it.
    func interfaceType(of link: LinkMessage) -> NetworkInterface.InterfaceType
}
