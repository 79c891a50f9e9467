/// What a target's last answer rested on, so a batch of changes that touches none of it can skip the
/// target: the destinations whose routes decide it, the interface it leaves through, its source address.
///
/// The rule: a batch touches the target when it affects everything, or changed a link or the addresses of
/// the output interface, or added or removed the source address or a destination, or changed a route whose
/// prefix contains a destination (the internet probes count as destinations of a target that
/// ``followsInternet``); an ``always`` target is touched by every batch. ``DependencyIndex``
/// applies it to all targets at once.
///
/// Sound because a route only matches destinations inside its prefix, a link change that can revive
/// routes is reported as affecting everything, and the kernel reports the routes an address brings and
/// takes with it.
package struct TargetDependency: Sendable, Equatable {
    // Addresses as zone-less keys, the first destination inline, the interface in 32 bits: each listening target
    // keeps one, and its evaluation makes one each pass, without an allocation for a single destination.

    /// Destinations whose route lookups decide the answer (a zoned target depends on everything instead).
    package var destinations = InlineFirstArray<AddressKey>()
    /// The source address of the answer's route.
    package var sourceAddress: AddressKey?
    /// What the destination's entry lookup found, when the evaluation asked (not indexed: it picks the targets one
    /// lookup can answer together, see ``SharedRouteGroup``).
    package var match: RouteMatch?
    private var storedInterfaceIndex: UInt32?
    /// Evaluated again after every change (the internet, link-local, hosts, failed evaluations).
    package var always = false
    /// The internet probes' routes decide the answer too (an IPv4 address NAT64 carries, or may). A flag, not two
    /// more destinations: a default route's change moves 10,000 such targets in and out, and the index keeps them
    /// in one set instead of hashing two keys for each.
    package var followsInternet = false

    /// The output interface of the answer's route. Kept in 32 bits, as the kernel gives it (`RTA_OIF`); an index
    /// that does not fit, which no kernel gives, makes the dependency ``always``, so nothing is missed.
    package var interfaceIndex: Int? {
        get { storedInterfaceIndex.map(Int.init) }
        set {
            storedInterfaceIndex = newValue.flatMap { UInt32(exactly: $0) }
            if newValue != nil && storedInterfaceIndex == nil { always = true }
        }
    }

    /// Depends on every change.
    package static let always = TargetDependency(always: true)

    package init(
        always: Bool = false, destinations: InlineFirstArray<AddressKey> = [], followsInternet: Bool = false,
        interfaceIndex: Int? = nil, sourceAddress: AddressKey? = nil, match: RouteMatch? = nil
    ) {
        self.destinations = destinations
        self.followsInternet = followsInternet
        self.sourceAddress = sourceAddress
        self.match = match
        self.always = always
        self.interfaceIndex = interfaceIndex
    }
}
