/// Targets of one pass that the kernel answers alike after a batch of route changes, so that one lookup answers
/// them all: IPv4 targets that all matched the same changed `main` route before the batch, or that all matched no
/// route and lie inside the same changed prefix.
///
/// Why that is exact, for the default rules (`local`, then `main`, then `default`) and a batch that changed routes
/// only (no link, no address), with *P* the group's prefix and no narrower changed route around any member:
/// - **Matched *P*.** No route in `local` covered a member, and none in `main` narrower than *P* did. So every route
///   a member can match now in `local` or `main` has prefix *P* or a wider one, and covers every member alike; in
///   `default`, provided nothing there lies strictly inside *P*, the same holds.
/// - **Matched nothing.** A member's lookup ended as if nothing matched (`ENETUNREACH`): nothing covered it, or a
///   `throw` route passed it on. Provided no route that refuses or passes packets on lies strictly inside *P* around
///   a member (``RefusingRoutes``; such members are asked alone), the only routes that can match a member now are
///   the changed ones of prefix *P* or wider: the same for all.
///
/// The kernel picks among routes of one prefix by type, metric and next-hop state, never by the destination, except
/// where a route has several next hops: the evaluator checks the answer for that. IPv6 is left out, as its source
/// address is chosen per destination (RFC 6724).
package struct SharedRouteGroup: Sendable, Equatable {
    /// The members' prefix: the changed route they matched, or the narrowest changed prefix around them.
    package let prefix: NetworkChanges.Prefix
    /// Whether the members matched no route before the batch (else they matched the `main` route to ``prefix``).
    package let matchedNothing: Bool
    /// The members' positions in the pass's list of targets.
    package private(set) var positions: [Int]

    package init(prefix: NetworkChanges.Prefix, matchedNothing: Bool, positions: [Int]) {
        self.prefix = prefix
        self.matchedNothing = matchedNothing
        self.positions = positions
    }

    /// Below this many members, one lookup each costs less than the policy and table dumps a group needs.
    static let minimumSize = 8

    /// Whether any group can form after `changes`: route changes only.
    static func mayForm(after changes: NetworkChanges) -> Bool {
        !changes.affectsEverything && changes.links.isEmpty && changes.addresses.isEmpty
            && changes.addressInterfaces.isEmpty && !changes.routePrefixes.isEmpty
    }

    /// The groups among a pass's targets after `changes`. `matches` and `isMarked` go by position: what each target's
    /// last entry lookup found, and whether it is due for another reason (new, or its host or DNS64 moved), which
    /// keeps it out of every group.
    static func form(
        _ targets: [ReachabilityTarget], matches: [RouteMatch?], isMarked: [Bool], after changes: NetworkChanges
    ) -> [SharedRouteGroup] {
        guard mayForm(after: changes) else { return [] }
        var groups: [SharedRouteGroup] = []
        // The group the last member joined, looked at first: after a default route's change nearly every target
        // joins the same one.
        var lastJoined = 0
        var lastEntry: (prefix: NetworkChanges.Prefix, changed: Bool)?
        for (position, target) in targets.enumerated() {
            guard case .address(let address) = target, address.zone == nil, isOrdinaryIPv4Unicast(address),
                !isMarked[position], let match = matches[position],
                let (prefix, matchedNothing) = groupPrefix(
                    of: address, match, among: changes.routePrefixes, lastEntry: &lastEntry)
            else { continue }
            func joins(_ index: Int) -> Bool {
                groups[index].matchedNothing == matchedNothing && groups[index].prefix.isSame(as: prefix)
            }
            if groups.indices.contains(lastJoined), joins(lastJoined) {
                groups[lastJoined].positions.append(position)
            } else if let index = groups.indices.first(where: joins) {
                groups[index].positions.append(position)
                lastJoined = index
            } else {
                lastJoined = groups.count
                groups.append(SharedRouteGroup(prefix: prefix, matchedNothing: matchedNothing, positions: [position]))
            }
        }
        return groups.filter { $0.positions.count >= minimumSize }
    }

    /// The prefix whose group `address` joins: the changed `main` route it matched, or, when it matched nothing, the
    /// narrowest changed prefix around it. `nil` when it joins none: it matched another table or an unchanged route,
    /// or a narrower changed route may take it alone.
    ///
    /// `lastEntry` holds whether the last entry asked about is among the changed routes: the members of a group
    /// matched one entry, and asking for each was a third of forming the groups.
    private static func groupPrefix(
        of address: IPAddress, _ match: RouteMatch, among changed: [NetworkChanges.Prefix],
        lastEntry: inout (prefix: NetworkChanges.Prefix, changed: Bool)?
    ) -> (prefix: NetworkChanges.Prefix, matchedNothing: Bool)? {
        switch match {
        case .entry(let previous):
            guard previous.table == MatchedRoute.mainTable else { return nil }
            if lastEntry?.prefix != previous.prefix {
                lastEntry = (previous.prefix, changed.contains { $0.isSame(as: previous.prefix) })
            }
            guard lastEntry?.changed == true,
                !changed.contains(where: { $0.length > previous.prefix.length && $0.contains(address) })
            else { return nil }
            return (previous.prefix, false)
        case .none:
            // Without an array of the prefixes around it: this runs for each of 10,000 targets.
            var narrowest: NetworkChanges.Prefix?
            for prefix in changed where prefix.contains(address) && prefix.length > narrowest?.length ?? -1 {
                narrowest = prefix
            }
            return narrowest.map { ($0, true) }
        }
    }

    /// Not `0.0.0.0/8`, loopback, multicast or reserved (broadcast included): the kernel routes those by rules
    /// of their own, whatever route they match.
    static func isOrdinaryIPv4Unicast(_ address: IPAddress) -> Bool {
        guard address.family == .ipv4 else { return false }
        let first = address[byte: 0]
        return first != 0 && first != 127 && first < 224
    }
}

extension NetworkChanges.Prefix {
    /// Whether both prefixes cover the same addresses: of one length, one holds the other's address.
    func isSame(as other: Self) -> Bool { length == other.length && other.contains(address) }

    /// Whether the prefix lies inside `other` and is narrower: a route to it can take some of `other`'s
    /// addresses and leave the rest.
    func isStrictlyInside(_ other: Self) -> Bool { length > other.length && other.contains(address) }
}
