/// What a target's last answer rests on: the routes to its own addresses and to any other destinations its
/// evaluation asked about, the interface it leaves through and its source address. A batch of changes that touches
/// none of them cannot change the answer, and the monitor skips the target.
///
/// Sound because a route only matches destinations inside its prefix, a link change that can revive routes is
/// reported as affecting everything, and the kernel reports the routes an address brings and takes with it.
package struct TargetDependency: Sendable {
    /// Evaluated again after every change (the internet, link-local, hosts, failed evaluations).
    package var always = false
    /// Destinations beside the target's own addresses, without zones, whose route lookups decide the answer (the
    /// internet's, for an IPv4 address NAT64 may carry).
    package var destinations: [IPAddress] = []
    /// The output interface of the answer's route.
    package var interfaceIndex: Int?
    /// Through a VPN, the interface under the tunnel (``ReachabilityPath/underlying``).
    package var underlyingInterfaceIndex: Int?
    /// The source address of the answer's route.
    package var sourceAddress: IPAddress?
    /// What the backend noted of the answer's lookups for the target's next evaluation (``DueTarget/previous``),
    /// such as the routing entry the Linux backend matched, to answer targets that matched one changed entry
    /// together. The monitor keeps it and never reads it.
    package var backendNote: (any Hashable & Sendable)?

    /// Depends on every change.
    package static let always = TargetDependency(always: true)

    /// Makes a dependency.
    package init(
        always: Bool = false, destinations: [IPAddress] = [], interfaceIndex: Int? = nil,
        underlyingInterfaceIndex: Int? = nil, sourceAddress: IPAddress? = nil, backendNote: (any Hashable & Sendable)? = nil
    ) {
        self.always = always
        self.destinations = destinations
        self.interfaceIndex = interfaceIndex
        self.underlyingInterfaceIndex = underlyingInterfaceIndex
        self.sourceAddress = sourceAddress
        self.backendNote = backendNote
    }

    /// Whether `changes` can have changed `target`'s answer: they affect everything or this target always; or they
    /// changed the output interface's link or addresses (or those of the interface under its VPN), added or removed
    /// the source address, one of the target's own addresses (an address's, a pair's two) or another destination, or
    /// changed a route whose prefix contains one of those.
    package func isTouched(by changes: NetworkChanges, of target: ReachabilityTarget) -> Bool {
        if always || changes.affectsEverything { return true }
        if let interfaceIndex, changes.interfaces.contains(interfaceIndex) { return true }
        if let underlyingInterfaceIndex, changes.interfaces.contains(underlyingInterfaceIndex) { return true }
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
