/// What a target's last answer rests on: the routes to its own addresses and to any other destinations its
/// evaluation asked about, the interface it leaves through and its source address. A batch of changes that touches
/// none of them cannot change the answer, and the monitor skips the target.
///
/// Sound because a route only matches destinations inside its prefix, a link change that can revive routes is
/// reported as affecting everything, and the kernel reports the routes an address brings and takes with it.
package struct TargetDependency: Sendable, Equatable {
    /// What a destination's lookup matched in the routing tables when the backend asked: a table's entry, or
    /// nothing. The monitor keeps it and hands it back with the target's next evaluation (``DueTarget/previous``),
    /// so that a backend can answer the targets that matched one changed entry together.
    package enum MatchedEntry: Sendable, Equatable {
        /// The entry of this routing table with this destination prefix.
        case entry(table: UInt32, prefix: IPPrefix)
        /// No entry: the tables held nothing for the destination, or only a route that passed it on.
        case none
    }

    /// Evaluated again after every change (the internet, link-local, hosts, failed evaluations).
    package var always = false
    /// Destinations beside the target's own addresses, without zones, whose route lookups decide the answer (the
    /// internet's, for an IPv4 address NAT64 may carry).
    package var destinations: [IPAddress] = []
    /// The output interface of the answer's route.
    package var interfaceIndex: Int?
    /// The source address of the answer's route.
    package var sourceAddress: IPAddress?
    /// What the first destination's lookup matched, when the backend asked.
    package var matchedEntry: MatchedEntry?

    /// Depends on every change.
    package static let always = TargetDependency(always: true)

    /// Makes a dependency.
    package init(
        always: Bool = false, destinations: [IPAddress] = [], interfaceIndex: Int? = nil, sourceAddress: IPAddress? = nil,
        matchedEntry: MatchedEntry? = nil
    ) {
        self.always = always
        self.destinations = destinations
        self.interfaceIndex = interfaceIndex
        self.sourceAddress = sourceAddress
        self.matchedEntry = matchedEntry
    }

    /// Whether `changes` can have changed `target`'s answer: they affect everything or this target always; or they
    /// changed the output interface's link or addresses, added or removed the source address, one of the target's
    /// own addresses (an address's, a pair's two) or another destination, or changed a route whose prefix contains
    /// one of those.
    package func isTouched(by changes: NetworkChanges, of target: ReachabilityTarget) -> Bool {
        if always || changes.affectsEverything { return true }
        if let interfaceIndex, changes.interfaces.contains(interfaceIndex) { return true }
        if let sourceAddress, changes.addresses.contains(sourceAddress) { return true }
        let touches = { (destination: IPAddress) in
            changes.addresses.contains(destination) || changes.routePrefixes.contains { $0.contains(destination) }
        }
        switch target {
        case .address(let address): if touches(address) { return true }
        case .addressPair(let local, let remote): if touches(remote) || touches(local) { return true }
        case .internet, .linkLocal, .host, .restricted: break
        }
        return destinations.contains(where: touches)
    }
}
