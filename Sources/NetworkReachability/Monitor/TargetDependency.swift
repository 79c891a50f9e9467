/// What a target's last answer rested on, so a batch of changes that touches none of it can skip the
/// target: the destinations whose routes decide it, the interface it leaves through, its source address.
///
/// The rule: a batch touches the target when it affects everything, or changed a link or the addresses of
/// the output interface, or added or removed the source address or a destination, or changed a route whose
/// prefix contains a destination; an ``always`` target is touched by every batch. ``DependencyIndex``
/// applies it to all targets at once.
///
/// Sound because a route only matches destinations inside its prefix, a link change that can revive
/// routes is reported as affecting everything, and the kernel reports the routes an address brings and
/// takes with it.
package struct TargetDependency: Sendable, Equatable {
    /// Evaluated again after every change (the internet, link-local, hosts, failed evaluations).
    package var always = false
    /// Destinations whose route lookups decide the answer.
    package var destinations: [IPAddress] = []
    /// The output interface of the answer's route.
    package var interfaceIndex: Int?
    /// The source address of the answer's route.
    package var sourceAddress: IPAddress?
    /// What the destination's entry lookup found, when the evaluation asked (not indexed: it picks the targets one
    /// lookup can answer together, see ``SharedRouteGroup``).
    package var match: RouteMatch?

    /// Depends on every change.
    package static let always = TargetDependency(always: true)

    package init(
        always: Bool = false, destinations: [IPAddress] = [], interfaceIndex: Int? = nil, sourceAddress: IPAddress? = nil,
        match: RouteMatch? = nil
    ) {
        self.always = always
        self.destinations = destinations
        self.interfaceIndex = interfaceIndex
        self.sourceAddress = sourceAddress
        self.match = match
    }
}
