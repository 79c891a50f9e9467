import NetworkReachabilityCore
import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Answers a monitor pass's address targets with as few route lookups as is exact on Linux's FIB: the one place
/// that knows of routing tables, policy rules and refusing routes.
///
/// - Each destination's lookup also asks which table entry it matches (`RTM_F_FIB_MATCH`), kept in its dependency;
///   destinations that match one entry with a single next hop share one path lookup.
/// - After a batch that changed routes only, under the kernel's default policy rules, the IPv4 targets that matched
///   the same changed `main` route, or matched nothing inside the same changed prefix, get one lookup for all
///   (``Group``).
///
/// What it buys (`Benchmarks/`, 10,000 listening targets): a default route's removal reaches all of them in a few
/// milliseconds, where a lookup of its own for each took about 30.
struct RouteSharing {
    /// Targets of one pass that the kernel answers alike after a batch of route changes: IPv4 targets that all
    /// matched the same changed `main` route before the batch, or that all matched no route and lie inside the same
    /// changed prefix.
    ///
    /// Why that is exact, for the default rules (`local`, then `main`, then `default`) and a batch that changed routes
    /// only (no link, no address), with *P* the group's prefix and no narrower changed route around any member:
    /// - **Matched *P*.** No route in `local` covered a member, and none in `main` narrower than *P* did. So every
    ///   route a member can match now in `local` or `main` has prefix *P* or a wider one, and covers every member
    ///   alike; in `default`, provided nothing there lies strictly inside *P*, the same holds.
    /// - **Matched nothing.** A member's lookup ended as if nothing matched (`ENETUNREACH`): nothing covered it, or a
    ///   `throw` route passed it on. Provided no route that refuses or passes packets on lies strictly inside *P*
    ///   around a member (``RefusingRoutes``; such members are asked alone), the only routes that can match a member
    ///   now are the changed ones of prefix *P* or wider: the same for all.
    ///
    /// The kernel picks among routes of one prefix by type, metric and next-hop state, never by the destination,
    /// except where a route has several next hops: the shared answer is checked for that. IPv6 is left out, as its
    /// source address is chosen per destination (RFC 6724).
    struct Group: Equatable {
        /// The changed route the members matched, or the narrowest changed prefix around them.
        var prefix: IPPrefix
        /// Whether the members matched no route before the batch (else they matched the `main` route to ``prefix``).
        var matchedNothing: Bool
        /// The members' positions in the pass's list of targets.
        var positions: [Int]
    }

    /// Addresses per round trip of a pass: an entry and a path each at most, so that a round trip's lookups stay
    /// within ``KernelQueries/batchLimit`` (what fits the socket's receive buffer), and a round trip the kernel could
    /// not answer sends only these back to one lookup each.
    static let addressesPerSend = KernelQueries.batchLimit / 2
    /// Up to this many addresses, each one's entry and path are asked side by side in one round trip (a pass for
    /// one target stays one round trip). Above, entries go first, then one path per distinct entry.
    static let sideBySideLimit = 4
    /// Below this many members, one lookup each costs less than the policy and table dumps a group needs.
    static let minimumGroupSize = 8
    static let mainTable = UInt32(RT_TABLE_MAIN.rawValue)
    static let defaultTable = UInt32(RT_TABLE_DEFAULT.rawValue)

    private var refusing = RefusingRoutes()

    /// What one pass found of the policy rules and the `default` table, asked once for all its parts and kept by the
    /// pass (``NetlinkPass``), never beyond it: a change may follow.
    struct PassTables {
        var rulesAreDefaults: Bool?
        var defaultTablePrefixes: [IPPrefix]??
    }

    /// Applies a route notification (`deleted` for `RTM_DELROUTE`, `replacing` for `NLM_F_REPLACE`).
    mutating func apply(_ route: Route, deleted: Bool, replacing: Bool) {
        refusing.apply(route, deleted: deleted, replacing: replacing)
    }

    /// Notifications were lost: what was kept from them is read again when next needed.
    mutating func forget() { refusing.forget() }

    // MARK: - A pass

    /// Evaluates `due` after `changes`, answers in order: groups first, then the other address targets without a
    /// zone ``addressesPerSend`` at a time, then the rest one by one. A `send` the kernel could not answer falls back to one by
    /// one too.
    mutating func evaluate(
        _ due: [DueTarget], after changes: NetworkChanges, with evaluator: TargetEvaluator, tables: inout PassTables,
        queries: KernelQueries
    ) -> [TargetEvaluation] {
        var evaluations = [TargetEvaluation?](repeating: nil, count: due.count)
        let groups = Self.groups(of: due, after: changes)
        if !groups.isEmpty {
            evaluateGroups(groups, of: due, into: &evaluations, with: evaluator, tables: &tables, queries: queries)
        }
        var addresses: [(position: Int, address: IPAddress)] = []
        for position in due.indices where evaluations[position] == nil {
            if case .address(let address) = due[position].target, address.zone == nil { addresses.append((position, address)) }
        }
        for start in stride(from: 0, to: addresses.count, by: Self.addressesPerSend) {
            let sent = addresses[start..<min(start + Self.addressesPerSend, addresses.count)]
            guard let answers = try? Self.answersWithEntries(for: sent.map(\.address), queries: queries) else { continue }
            for ((position, address), (answer, match)) in zip(sent, answers) {
                evaluations[position] = Self.evaluation(of: address, answer, match: match, with: evaluator)
            }
        }
        return due.indices.map { position in
            evaluations[position].take()
                ?? TargetEvaluator.evaluation(of: due[position].target) { () throws(ReachabilityError) in
                    try evaluator.evaluate(due[position].target)
                }
        }
    }

    /// `address`'s evaluation from the kernel's `answer`, with the entry it matched.
    private static func evaluation(
        of address: IPAddress, _ answer: RouteAnswer, match: MatchedEntry?, with evaluator: TargetEvaluator
    ) -> TargetEvaluation {
        var evaluation = TargetEvaluator.evaluation(of: .address(address)) { () throws(ReachabilityError) in
            try evaluator.evaluate(address, answer: answer)
        }
        if !evaluation.dependency.always { evaluation.dependency.backendNote = match }
        return evaluation
    }

    // MARK: - Groups

    /// The groups among a pass's targets after `changes`: targets due for a reason of their own (no ``DueTarget/previous``)
    /// join none.
    static func groups(of due: [DueTarget], after changes: NetworkChanges) -> [Group] {
        guard changes.changedRoutesOnly else { return [] }
        var groups: [Group] = []
        var positions: [Group.Key: Int] = [:]
        var lastJoined: (key: Group.Key, index: Int)?  // after a default route's change nearly all join one group
        for (position, target) in due.enumerated() {
            guard case .address(let address) = target.target, address.zone == nil, isOrdinaryIPv4Unicast(address),
                let match = target.previous?.backendNote as? MatchedEntry,
                let key = groupKey(of: address, match, among: changes.routePrefixes)
            else { continue }
            if let index = lastJoined?.key == key ? lastJoined?.index : positions[key] {
                groups[index].positions.append(position)
                lastJoined = (key, index)
            } else {
                positions[key] = groups.count
                lastJoined = (key, groups.count)
                groups.append(Group(prefix: key.prefix, matchedNothing: key.matchedNothing, positions: [position]))
            }
        }
        return groups.filter { $0.positions.count >= minimumGroupSize }
    }

    /// The group `address` joins: the changed `main` route it matched, or, when it matched nothing, the narrowest
    /// changed prefix around it. `nil` when it joins none: it matched another table or an unchanged route, or a
    /// narrower changed route may take it alone.
    private static func groupKey(
        of address: IPAddress, _ match: MatchedEntry, among changed: [IPPrefix]
    ) -> Group.Key? {
        if let prefix = match.prefix {
            guard match.table == mainTable, changed.contains(prefix),
                !changed.contains(where: { $0.length > prefix.length && $0.contains(address) })
            else { return nil }
            return Group.Key(prefix: prefix, matchedNothing: false)
        }
        var narrowest: IPPrefix?
        for prefix in changed where prefix.contains(address) && prefix.length > narrowest?.length ?? -1 {
            narrowest = prefix
        }
        return narrowest.map { Group.Key(prefix: $0, matchedNothing: true) }
    }

    /// Answers every member of each group with one entry and one path lookup, where that is exact (see ``Group``):
    /// IPv4's policy rules are the defaults; for members that matched a route, no route in the `default` table lies
    /// strictly inside the group's prefix; for members that matched none, no refusing route strictly inside it covers
    /// them (those are left out). A group whose answer cannot be shared, or a kernel that cannot be asked, leaves its
    /// members to lookups of their own.
    private mutating func evaluateGroups(
        _ groups: [Group], of due: [DueTarget], into evaluations: inout [TargetEvaluation?], with evaluator: TargetEvaluator,
        tables: inout PassTables, queries: KernelQueries
    ) {
        if tables.rulesAreDefaults == nil { tables.rulesAreDefaults = (try? queries.hasDefaultPolicyRules(.ipv4)) == true }
        guard tables.rulesAreDefaults == true else { return }
        var asked: [(group: Group, members: [(position: Int, address: IPAddress)])] = []
        for group in groups {
            var members: [(position: Int, address: IPAddress)] = group.positions.compactMap { position in
                guard case .address(let address) = due[position].target else { return nil }
                return (position, address)
            }
            if group.matchedNothing {
                // Read once, then kept from notifications (``RefusingRoutes``).
                guard
                    let refusingPrefixes = try? refusing.prefixes(reading: { type throws(ReachabilityError) in
                        try queries.routes(family: .ipv4, table: nil, type: type)
                    })
                else { continue }
                let inside = refusingPrefixes.filter { $0.isStrictlyInside(group.prefix) }
                members.removeAll { member in inside.contains { $0.contains(member.address) } }
            } else {
                if tables.defaultTablePrefixes == nil {
                    tables.defaultTablePrefixes = .some(
                        try? queries.routes(family: .ipv4, table: Self.defaultTable, type: nil).map(\.prefix))
                }
                guard case .some(let fallback?) = tables.defaultTablePrefixes,
                    !fallback.contains(where: { $0.isStrictlyInside(group.prefix) })
                else { continue }
            }
            if members.count > 1 { asked.append((group, members)) }
        }
        guard !asked.isEmpty,
            let answers = try? Self.lookupRoutes(
                asked.flatMap { [.entry(matching: $0.members[0].address), .path(to: $0.members[0].address)] }, queries: queries)
        else { return }
        for (index, (group, members)) in asked.enumerated() {
            guard
                let (answer, match) = Self.sharedAnswer(
                    entry: answers[2 * index], path: answers[2 * index + 1], after: group.prefix)
            else { continue }
            // The first member's evaluation stands for the others': the same answer, described alike, resting on the
            // same routes beside each one's own address. Unless NAT64 synthesized an address from its own: then each
            // is evaluated on its own.
            let model = Self.evaluation(of: members[0].address, answer, match: match, with: evaluator)
            for (position, address) in members {
                guard case .success(var snapshot) = model.result, snapshot.path.synthesizedAddress == nil else {
                    evaluations[position] = Self.evaluation(of: address, answer, match: match, with: evaluator)
                    continue
                }
                snapshot.target = .address(address)
                evaluations[position] = TargetEvaluation(result: .success(snapshot), dependency: model.dependency)
            }
        }
    }

    /// The answer a group's representative got, if every member gets it too: the same failure, or a path that
    /// follows an entry with one next hop, as wide as the group's prefix or wider (anything narrower would mean the
    /// table changed since the batch, and the members are asked one by one).
    static func sharedAnswer(
        entry: RouteAnswer, path: RouteAnswer, after prefix: IPPrefix
    ) -> (answer: RouteAnswer, match: MatchedEntry?)? {
        switch entry {
        case .noRoute(let code):
            guard case .noRoute(let pathCode) = path, pathCode == code else { return nil }
            return (path, matchedEntry(entry))
        case .route(let route):
            guard route.leavesOnePath, case .route(let taken) = path, route.path.admits(taken.path),
                prefix.lies(inside: route.prefix)
            else { return nil }
            return (path, matchedEntry(entry))
        }
    }

    // MARK: - Lookups with entries

    /// The kernel's answers for `addresses`, in order, each with the table entry it matched where one was asked:
    /// IPv4 unicast addresses (``isOrdinaryIPv4Unicast(_:)``). Destinations matching one entry that leaves no choice
    /// of next hop take the same path, so one path lookup describes them all, and is checked against the entry (a
    /// change between the two round trips could part them).
    static func answersWithEntries(
        for addresses: [IPAddress], queries: KernelQueries
    ) throws(ReachabilityError) -> [(answer: RouteAnswer, match: MatchedEntry?)] {
        let asksEntry = addresses.map(isOrdinaryIPv4Unicast)
        if addresses.count <= sideBySideLimit { return try sideBySide(addresses, asksEntry: asksEntry, queries: queries) }
        let entries = try lookupRoutes(
            zip(addresses, asksEntry).map { $1 ? .entry(matching: $0) : .path(to: $0) }, queries: queries)
        var results = [(answer: RouteAnswer, match: MatchedEntry?)?](repeating: nil, count: addresses.count)
        var paths: [(address: IPAddress, entry: Route)] = []
        var pathOfEntry: [EntryKey: Int] = [:]
        var pending: [(position: Int, path: Int)] = []
        for (position, answer) in entries.enumerated() {
            // An entry lookup fails exactly as the path lookup would: same lookup, same error.
            guard asksEntry[position], case .route(let entry) = answer else {
                results[position] = (answer, asksEntry[position] ? matchedEntry(answer) : nil)
                continue
            }
            let key = entry.leavesOnePath ? EntryKey(entry) : nil
            if let key, let known = pathOfEntry[key] {
                pending.append((position, known))
            } else {
                if let key { pathOfEntry[key] = paths.count }
                pending.append((position, paths.count))
                paths.append((addresses[position], entry))
            }
        }
        let pathAnswers = paths.isEmpty ? [] : try lookupRoutes(paths.map { .path(to: $0.address) }, queries: queries)
        var parted: [Int] = []
        for (position, path) in pending {
            guard case .route(let taken) = pathAnswers[path], paths[path].entry.path.admits(taken.path) else {
                parted.append(position)
                continue
            }
            results[position] = (pathAnswers[path], matchedEntry(.route(paths[path].entry)))
        }
        if !parted.isEmpty {
            // The table changed between the round trips; a later pass brings the change. The entry is not kept.
            let own = try lookupRoutes(parted.map { .path(to: addresses[$0]) }, queries: queries)
            for (position, answer) in zip(parted, own) { results[position] = (answer, nil) }
        }
        return try results.map { (result) throws(ReachabilityError) in
            guard let result else { throw .malformedKernelReply("route lookup answer") }
            return result
        }
    }

    /// Each address's entry (where asked) and path in one round trip.
    private static func sideBySide(
        _ addresses: [IPAddress], asksEntry: [Bool], queries: KernelQueries
    ) throws(ReachabilityError) -> [(answer: RouteAnswer, match: MatchedEntry?)] {
        var lookups: [RouteLookup] = []
        for (address, entry) in zip(addresses, asksEntry) {
            if entry { lookups.append(.entry(matching: address)) }
            lookups.append(.path(to: address))
        }
        let answers = try lookupRoutes(lookups, queries: queries)
        var results: [(answer: RouteAnswer, match: MatchedEntry?)] = []
        var next = 0
        for entry in asksEntry {
            let match = entry ? matchedEntry(answers[next]) : nil
            if entry { next += 1 }
            results.append((answers[next], match))
            next += 1
        }
        return results
    }

    /// The answers to `lookups`, checked to be one each.
    private static func lookupRoutes(_ lookups: [RouteLookup], queries: KernelQueries) throws(ReachabilityError) -> [RouteAnswer]
    {
        let answers = try queries.lookupRoutes(lookups)
        guard answers.count == lookups.count else { throw .malformedKernelReply("route lookup answers") }
        return answers
    }

    /// What an entry lookup's answer says was matched; `nil` for a failure that names a refusing route of its own
    /// (`EHOSTUNREACH`, `EACCES`, `EINVAL`), which this does not tell apart.
    static func matchedEntry(_ answer: RouteAnswer) -> MatchedEntry? {
        switch answer {
        case .route(let route): .entry(table: route.table, prefix: route.prefix)
        case .noRoute(.nothingMatched): MatchedEntry.none
        case .noRoute: nil
        }
    }

    /// Not IPv4, `0.0.0.0/8`, loopback, multicast or reserved (broadcast included): the kernel routes those by
    /// rules of their own, whatever route they match.
    static func isOrdinaryIPv4Unicast(_ address: IPAddress) -> Bool {
        guard address.family == .ipv4 else { return false }
        let first = address[byte: 0]
        return first != 0 && first != 127 && first < 224
    }

    /// What tells table entries apart as far as the path they give goes.
    private struct EntryKey: Hashable {
        let table: UInt32
        let prefix: IPPrefix
        let path: RoutePath

        init(_ route: Route) { (table, prefix, path) = (route.table, route.prefix, route.path) }
    }
}

extension RouteSharing.Group {
    /// What makes members one group.
    fileprivate struct Key: Hashable {
        let prefix: IPPrefix
        let matchedNothing: Bool
    }
}

extension Route {
    /// Whether every destination matching this entry takes the same path: a unicast route with one next hop. The
    /// source the kernel picks for it is the entry's own or its next hop's, never per destination (IPv4).
    var leavesOnePath: Bool { type == .unicast && !hasNextHopChoice && family == .ipv4 }
}
