/// Targets of one pass that all matched the same `main` route before a batch that changed only routes with that
/// route's prefix (and wider or unrelated ones): one lookup answers them all, when the kernel's policy is the
/// default one and no route in the `default` table lies strictly inside the prefix.
///
/// Why that is exact, for IPv4 and the default rules (`local`, then `main`, then `default`): each member matched
/// prefix *P* in `main`, so no route in `local` covered it and no route in `main` narrower than *P* did. The batch
/// changed no route narrower than *P* around a member (that member would not be in the group), no link and no
/// address. So every route a member can match now in `local` or `main` has prefix *P* or a wider one, and covers
/// every member alike; in `default`, with nothing strictly inside *P*, the same holds. The kernel picks among
/// routes of one prefix by type, metric and next-hop state, never by the destination, except where a route has
/// several next hops: the evaluator checks the answer for that. IPv6 is left out, as its source address is chosen
/// per destination (RFC 6724).
package struct SharedRouteGroup: Sendable, Equatable {
    /// The route every member matched before the batch.
    package let previous: MatchedRoute
    /// The members' positions in the pass's list of targets.
    package private(set) var positions: [Int]

    package init(previous: MatchedRoute, positions: [Int]) {
        self.previous = previous
        self.positions = positions
    }

    /// Below this many members, one lookup each costs less than the policy and table dumps a group needs.
    static let minimumSize = 8

    /// Whether any group can form after `changes`: route changes only.
    static func mayForm(after changes: NetworkChanges) -> Bool {
        !changes.affectsEverything && changes.links.isEmpty && changes.addresses.isEmpty
            && changes.addressInterfaces.isEmpty && !changes.routePrefixes.isEmpty
    }

    /// The groups among a pass's targets after `changes`. `matched` and `isMarked` go by position: the route each
    /// target matched at its last evaluation, and whether it is due for another reason (new, or its host or
    /// DNS64 moved), which keeps it out of every group.
    static func form(
        _ targets: [ReachabilityTarget], matched: [MatchedRoute?], isMarked: [Bool], after changes: NetworkChanges
    ) -> [SharedRouteGroup] {
        guard mayForm(after: changes) else { return [] }
        var groups: [SharedRouteGroup] = []
        for (position, target) in targets.enumerated() {
            guard case .address(let address) = target, address.zone == nil, isOrdinaryIPv4Unicast(address),
                !isMarked[position], let previous = matched[position], previous.table == MatchedRoute.mainTable,
                changes.routePrefixes.contains(where: { $0.isSame(as: previous.prefix) }),
                // A changed route narrower than the one it matched may take it alone.
                !changes.routePrefixes.contains(where: {
                    $0.length > previous.prefix.length && $0.contains(address)
                })
            else { continue }
            if let index = groups.firstIndex(where: { $0.previous.prefix.isSame(as: previous.prefix) }) {
                groups[index].positions.append(position)
            } else {
                groups.append(SharedRouteGroup(previous: previous, positions: [position]))
            }
        }
        return groups.filter { $0.positions.count >= minimumSize }
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
    /// Whether both prefixes cover the same addresses.
    func isSame(as other: Self) -> Bool { lies(inside: other) && other.lies(inside: self) }

    /// Whether the prefix lies inside `other` and is narrower: a route to it can take some of `other`'s
    /// addresses and leave the rest.
    func isStrictlyInside(_ other: Self) -> Bool { length > other.length && other.contains(address) }
}
