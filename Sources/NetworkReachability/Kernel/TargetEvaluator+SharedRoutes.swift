import Glibc

/// Lookups that also name the table entry each destination matched, and one lookup for a whole
/// ``SharedRouteGroup``: after a default route's change, 10,000 targets behind it cost two lookups, not 10,000.
extension TargetEvaluator {
    /// Up to this many addresses, each one's entry and path are asked side by side in one round trip (a pass for
    /// one target stays one round trip). Above, entries go first, then one path per distinct entry.
    static let sideBySideLimit = 4

    /// The kernel's answers for `addresses`, in order, each with the table entry it matched where one was asked:
    /// IPv4 unicast addresses (``SharedRouteGroup/isOrdinaryIPv4Unicast(_:)``). Destinations matching one entry
    /// that leaves no choice of next hop take the same path, so one path lookup describes them all, and is
    /// checked against the entry (a change between the two round trips could part them).
    func answersWithEntries(
        for addresses: [IPAddress]
    ) throws(ReachabilityError) -> [(answer: RouteAnswer, match: RouteMatch?)] {
        let asksEntry = addresses.map(SharedRouteGroup.isOrdinaryIPv4Unicast)
        if addresses.count <= Self.sideBySideLimit { return try sideBySide(addresses, asksEntry: asksEntry) }
        let entries = try lookupRoutes(zip(addresses, asksEntry).map { $1 ? .entry(matching: $0) : .path(to: $0) })
        var results: [(answer: RouteAnswer, match: RouteMatch?)?] = .emptyPlaces(addresses.count)
        var paths: [IPAddress] = []
        var entryOfPath: [RouteMessage?] = []
        var pathOfEntry: [EntryKey: Int] = [:]
        var pending: [(position: Int, path: Int, matched: MatchedRoute)] = []
        for (position, answer) in entries.enumerated() {
            // An entry lookup fails exactly as the path lookup would: same lookup, same error.
            guard asksEntry[position], case .route(let entry) = answer else {
                results[position] = (answer, asksEntry[position] ? RouteMatch(answer) : nil)
                continue
            }
            let path: Int
            if entry.leavesOnePath, let known = pathOfEntry[EntryKey(entry)] {
                path = known
            } else {
                path = paths.count
                paths.append(addresses[position])
                entryOfPath.append(entry.leavesOnePath ? entry : nil)
                if entry.leavesOnePath { pathOfEntry[EntryKey(entry)] = path }
            }
            pending.append((position, path, MatchedRoute(entry)))
        }
        let pathAnswers = paths.isEmpty ? [] : try lookupRoutes(paths.map { .path(to: $0) })
        var parted: [Int] = []
        for (position, path, matched) in pending {
            if let entry = entryOfPath[path], !Self.path(pathAnswers[path], follows: entry) {
                parted.append(position)
            } else {
                results[position] = (pathAnswers[path], .entry(matched))
            }
        }
        if !parted.isEmpty {
            // The table changed between the round trips; a later pass brings the change. The entry is not kept.
            let own = try lookupRoutes(parted.map { .path(to: addresses[$0]) })
            for (position, answer) in zip(parted, own) { results[position] = (answer, nil) }
        }
        return try results.map { (result) throws(ReachabilityError) in
            guard let result else { throw .malformedKernelReply("route lookup answer") }
            return result
        }
    }

    /// Each address's entry (where asked) and path in one round trip.
    private func sideBySide(
        _ addresses: [IPAddress], asksEntry: [Bool]
    ) throws(ReachabilityError) -> [(answer: RouteAnswer, match: RouteMatch?)] {
        var lookups: [RouteLookup] = []
        for (address, entry) in zip(addresses, asksEntry) {
            if entry { lookups.append(.entry(matching: address)) }
            lookups.append(.path(to: address))
        }
        let answers = try lookupRoutes(lookups)
        var results: [(answer: RouteAnswer, match: RouteMatch?)] = []
        var next = 0
        for entry in asksEntry {
            var match: RouteMatch?
            if entry {
                match = RouteMatch(answers[next])
                next += 1
            }
            results.append((answers[next], match))
            next += 1
        }
        return results
    }

    /// Answers every member of each group with one entry and one path lookup, where that is exact (see
    /// ``SharedRouteGroup``): IPv4's policy rules are the defaults; for members that matched a route, no route in the
    /// `default` table lies strictly inside the group's prefix; for members that matched none, no refusing route
    /// strictly inside it covers them (those are left out). A group whose answer cannot be shared, or a kernel that
    /// cannot be asked, leaves its members to the lookups of their own.
    func evaluateShared(
        _ groups: [SharedRouteGroup], of targets: [ReachabilityTarget], into evaluations: inout [TargetEvaluation?],
        lastRouted: inout RoutedOutcome?
    ) {
        guard ipv4RulesAreDefaults() else { return }
        var fallbackPrefixes: [NetworkChanges.Prefix]?
        var refusing: [NetworkChanges.Prefix]?
        var asked: [(group: SharedRouteGroup, members: [(position: Int, address: IPAddress)])] = []
        for group in groups {
            var members: [(position: Int, address: IPAddress)] = group.positions.compactMap { position in
                guard case .address(let address) = targets[position] else { return nil }
                return (position, address)
            }
            if group.matchedNothing {
                if refusing == nil { refusing = try? refusingRoutes?() }
                guard let inside = refusing?.filter({ $0.isStrictlyInside(group.prefix) }) else { continue }
                members.removeAll { member in inside.contains { $0.contains(member.address) } }
            } else {
                if fallbackPrefixes == nil { fallbackPrefixes = defaultTablePrefixes() }
                guard let fallbackPrefixes, !fallbackPrefixes.contains(where: { $0.isStrictlyInside(group.prefix) }) else {
                    continue
                }
            }
            if members.count > 1 { asked.append((group, members)) }
        }
        guard !asked.isEmpty,
            let answers = try? lookupRoutes(
                asked.flatMap { [.entry(matching: $0.members[0].address), .path(to: $0.members[0].address)] })
        else { return }
        for (index, (group, members)) in asked.enumerated() {
            guard
                let (answer, match) = Self.sharedAnswer(
                    entry: answers[2 * index], path: answers[2 * index + 1], after: group.prefix)
            else { continue }
            // The first member described stands for the others where its description does not name its address.
            // Only the first is tried: when it cannot stand for them (a synthesized address), none can.
            var model: TargetEvaluation?
            var isFirst = true
            for (position, address) in members {
                if let shared = model?.evaluation(of: address) {
                    evaluations[position] = shared
                    continue
                }
                let evaluation = describe(address, answer, match: match, lastRouted: &lastRouted)
                if isFirst, evaluation.evaluation(of: address) != nil { model = evaluation }
                isFirst = false
                evaluations[position] = evaluation
            }
        }
    }

    /// Whether IPv4's policy rules are the defaults: the pass's memo, else asked now.
    private func ipv4RulesAreDefaults() -> Bool {
        if let known = passMemo?.ipv4RulesAreDefaults { return known }
        let asked = (try? queries.hasDefaultPolicyRules(.ipv4)) == true
        passMemo?.ipv4RulesAreDefaults = asked
        return asked
    }

    /// The prefixes of IPv4's routes in the `default` table: the pass's memo, else asked now.
    private func defaultTablePrefixes() -> [NetworkChanges.Prefix]? {
        if let known = passMemo?.defaultTablePrefixes { return known }
        let asked = try? queries.routePrefixes(inTable: MatchedRoute.defaultTable, family: .ipv4)
        passMemo?.defaultTablePrefixes = asked
        return asked
    }

    /// The answer a group's representative got, if every member gets it too: the same failure, or a path that
    /// follows an entry with one next hop, as wide as the group's prefix or wider (anything narrower would mean the
    /// table changed since the batch, and the members are asked one by one).
    static func sharedAnswer(
        entry: RouteAnswer, path: RouteAnswer, after prefix: NetworkChanges.Prefix
    ) -> (answer: RouteAnswer, match: RouteMatch?)? {
        switch entry {
        case .noRoute(let code):
            guard case .noRoute(let pathCode) = path, pathCode == code else { return nil }
            return (path, RouteMatch(entry))
        case .route(let route):
            guard route.leavesOnePath, self.path(path, follows: route), prefix.lies(inside: route.prefix) else {
                return nil
            }
            return (path, .entry(MatchedRoute(route)))
        }
    }

    /// Whether `path` is the path `entry` gives: the same type, gateway and output interface, and the entry's
    /// source where it names one. (A path lookup names `main` as its table, wherever the entry is.)
    static func path(_ path: RouteAnswer, follows entry: RouteMessage) -> Bool {
        guard case .route(let taken) = path else { return false }
        return taken.type == entry.type && taken.gateway == entry.gateway
            && taken.outputInterface == entry.outputInterface
            && (entry.preferredSource == nil || taken.preferredSource == entry.preferredSource)
    }

    /// The answers to `lookups`, checked to be one each.
    private func lookupRoutes(_ lookups: [RouteLookup]) throws(ReachabilityError) -> [RouteAnswer] {
        let answers = try queries.lookupRoutes(lookups)
        guard answers.count == lookups.count else { throw .malformedKernelReply("route lookup answers") }
        return answers
    }

    /// What tells table entries apart as far as the path they give goes.
    private struct EntryKey: Hashable {
        let table: UInt32
        let destination: IPAddress?
        let length: UInt8
        let gateway: IPAddress?
        let outputInterface: Int?
        let preferredSource: IPAddress?

        init(_ route: RouteMessage) {
            (table, destination, length) = (route.table, route.destination, route.destinationLength)
            (gateway, outputInterface, preferredSource) = (route.gateway, route.outputInterface, route.preferredSource)
        }
    }
}

extension RouteMessage {
    /// Whether every destination matching this entry takes the same path: a unicast route with one next hop. The
    /// source the kernel picks for it is the entry's own or its next hop's, never per destination (IPv4).
    var leavesOnePath: Bool { type == .unicast && !hasNextHopChoice && family == UInt8(AF_INET) }
}

extension TargetEvaluation {
    /// This evaluation of one member of a ``SharedRouteGroup`` made another's, `address`'s: the same answer, so the
    /// same flags, path and dependency, for the member's own target and destination. A description is the same for
    /// every destination that gets the same answer (``TargetEvaluator/RoutedOutcome`` rests on that too), except
    /// where it names the address (a NAT64-synthesized one); a failed evaluation rests on everything. `nil` for
    /// those, and the member is described on its own.
    fileprivate func evaluation(of address: IPAddress) -> TargetEvaluation? {
        guard case .success(var snapshot) = result, snapshot.path.synthesizedAddress == nil, !dependency.always,
            case .address(let own) = snapshot.target, dependency.destinations.count == 1,
            dependency.destinations[0] == own.key
        else { return nil }
        snapshot.target = .address(address)
        // Made anew, not copied and changed: the copy's destinations were retained only to be released.
        let dependency = TargetDependency(
            destinations: InlineFirstArray(first: address.key, rest: []),  // a literal goes through an array
            followsInternet: dependency.followsInternet, interfaceIndex: dependency.interfaceIndex,
            sourceAddress: dependency.sourceAddress, match: dependency.match)
        return TargetEvaluation(result: .success(snapshot), dependency: dependency)
    }
}
