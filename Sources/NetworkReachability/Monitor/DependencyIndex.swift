/// Finds the targets a batch of changes can touch without visiting the others: targets are indexed by
/// output interface, by source address and by destination, and the destinations are kept sorted so the
/// targets inside a changed prefix are one binary search away. Work per batch grows with what the batch
/// touches, not with the number of targets.
///
/// Targets are named by their monitor slot numbers, small integers handed out densely and reused: what a
/// target rests on is kept at its number, and the sets of targets are ``SlotSet``s, bitmaps where they are
/// big, found by number where a target leaves them (10,000 targets move between an interface's and a source
/// address's sets on a default route's change, and hashing each was most of the index's cost).
struct DependencyIndex {
    /// By slot number, what a target rests on; `nil` for a number not in use.
    private var dependencies = ChunkedArray<TargetDependency?>()
    /// By slot number, the numbers of the interface's and source address's sets the target is in, -1 for none.
    /// Kept apart from `dependencies`, so that moving a target between sets copies no dependency in and out.
    private var interfaceSets: [Int] = []
    private var sourceSets: [Int] = []
    private var always = SlotSet()
    /// The targets whose answers the internet probes' routes decide too (``TargetDependency/followsInternet``).
    private var followingInternet = SlotSet()
    private var byInterface = NumberedSlotSets<Int>()
    private var bySource = NumberedSlotSets<AddressKey>()
    private var byDestination = NumberedSlotSets<AddressKey>()
    /// The keys of `byDestination` by family (IPv6 or not), each sorted bytewise and with its set's number; a new
    /// key is inserted in place (a target whose answer flips changes its keys every time). A key whose last target
    /// left stays, as removing from the middle moves everything after it: stopping 10,000 targets one by one was
    /// quadratic.
    private var sortedDestinations: [Bool: [NumberedDestination]] = [:]
    /// How many keys of `sortedDestinations` have no targets left; they are dropped once they outnumber the
    /// live keys, so the arrays stay within twice their live size.
    private var staleDestinations = 0

    /// A destination key and the number of its set in `byDestination` when it was last inserted: a default route's
    /// change touches every destination, and hashing 10,000 addresses to find their sets was about 6 % of the
    /// CPU of a fleet going through such changes. A key whose set went away keeps a number that is free or another
    /// key's, which finds nothing.
    private struct NumberedDestination {
        let address: AddressKey
        var number: Int32
    }

    /// Records what `target`'s latest answer rests on, replacing what it rested on before.
    mutating func set(_ dependency: consuming TargetDependency, for target: Int) {
        if target >= dependencies.count {
            let missing = target + 1 - dependencies.count
            for _ in 0..<missing { dependencies.append(nil) }
            interfaceSets.append(contentsOf: repeatElement(-1, count: missing))
            sourceSets.append(contentsOf: repeatElement(-1, count: missing))
        }
        // Non-optional from here on: each optional dependency made on the way cost a copy and a destroy.
        let previous = dependencies.update(at: target) { $0.take() } ?? Self.unindexed
        if previous != dependency { reindex(target, from: previous, to: dependency) }
        // Moved in, not copied (a copy retains its destinations and match); the setter copied the chunk's element
        // out and in besides.
        var incoming: TargetDependency? = consume dependency
        dependencies.update(at: target) { swap(&$0, &incoming) }
    }

    /// What `target`'s last entry lookup found, if its evaluation asked.
    func match(of target: Int) -> RouteMatch? {
        dependencies.indices.contains(target) ? dependencies.read(at: target) { $0?.match } : nil
    }

    /// Forgets `target` (its last registration left).
    mutating func remove(_ target: Int) {
        guard dependencies.indices.contains(target), let previous = dependencies.update(at: target, { $0.take() })
        else { return }
        reindex(target, from: previous, to: Self.unindexed)
    }

    /// What a target not in the tables rests on, as far as they go: nothing.
    private static let unindexed = TargetDependency()

    /// Moves `target` in the tables from what `old` indexes to what `new` does, touching only what differs:
    /// after a default route's removal every target changes, mostly not its destinations. An `always`
    /// dependency indexes nothing but its set; keys carry no zone, as the changes' addresses carry none (a
    /// zoned target depends on every change anyway).
    private mutating func reindex(_ target: Int, from old: TargetDependency, to new: TargetDependency) {
        if new.always { always.insert(target) } else { always.remove(target) }
        if !new.always && new.followsInternet { followingInternet.insert(target) } else { followingInternet.remove(target) }
        let oldInterface = old.always ? nil : old.interfaceIndex
        let newInterface = new.always ? nil : new.interfaceIndex
        if oldInterface != newInterface {
            if interfaceSets[target] >= 0 { byInterface.remove(target, fromSetNumbered: interfaceSets[target]) }
            interfaceSets[target] = newInterface.map { byInterface.insert(target, at: $0).number } ?? -1
        }
        let oldSource = old.always ? nil : old.sourceAddress
        let newSource = new.always ? nil : new.sourceAddress
        if oldSource != newSource {
            if sourceSets[target] >= 0 { bySource.remove(target, fromSetNumbered: sourceSets[target]) }
            sourceSets[target] = newSource.map { bySource.insert(target, at: $0).number } ?? -1
        }
        if !old.always {
            for destination in old.destinations where new.always || !new.destinations.contains(destination) {
                if byDestination.remove(target, at: destination) { retireSorted() }
            }
        }
        if !new.always {
            for destination in new.destinations where old.always || !old.destinations.contains(destination) {
                let (number, isNew) = byDestination.insert(target, at: destination)
                if isNew { insertSorted(destination, number: number) }
            }
        }
    }

    /// The indexed targets `changes` can touch; targets not indexed yet are the caller's to add.
    func affected(by changes: NetworkChanges) -> SlotSet {
        if changes.affectsEverything {
            var everything = SlotSet()
            for target in dependencies.indices where dependencies.read(at: target, { $0 != nil }) {
                everything.insert(target)
            }
            return everything
        }
        var affected = always
        if !followingInternet.isEmpty, TargetEvaluator.internetProbes.contains(where: { Self.touches(changes, $0) }) {
            affected.formUnion(followingInternet)
        }
        for index in changes.links.union(changes.addressInterfaces) { affected.formUnion(byInterface[index] ?? SlotSet()) }
        for address in changes.addresses.map(\.key) {
            affected.formUnion(bySource[address] ?? SlotSet())
            affected.formUnion(byDestination[address] ?? SlotSet())
        }
        for prefix in changes.routePrefixes {
            let (lowest, highest) = (prefix.bounds.lowest.key, prefix.bounds.highest.key)
            let sorted = sortedDestinations[lowest.isIPv6] ?? []
            var position = Self.firstPosition(in: sorted) { !$0.precedes(lowest) }
            while position < sorted.count, !highest.precedes(sorted[position].address) {
                if let targets = targets(at: sorted[position]) { affected.formUnion(targets) }
                position += 1
            }
        }
        return affected
    }

    /// Whether `changes` added or removed `destination`, or changed a route whose prefix contains it.
    private static func touches(_ changes: NetworkChanges, _ destination: IPAddress) -> Bool {
        changes.addresses.contains { $0.key == destination.key } || changes.routePrefixes.contains { $0.contains(destination) }
    }

    /// Adds a key that just got its first target, numbered `number`, or revives it when it is still there from
    /// before (its set may have another number now).
    private mutating func insertSorted(_ key: AddressKey, number: Int) {
        let position = sortedPosition(of: key)
        let entry = NumberedDestination(address: key, number: Int32(number))
        if sortedDestinations[key.isIPv6]?.indices.contains(position) == true,
            sortedDestinations[key.isIPv6]?[position].address == key
        {
            sortedDestinations[key.isIPv6]?[position] = entry
            staleDestinations -= 1
            return
        }
        sortedDestinations[key.isIPv6, default: []].insert(entry, at: position)
    }

    /// Counts a key that lost its last target, and drops all such keys in one pass once they outnumber the rest.
    private mutating func retireSorted() {
        staleDestinations += 1
        guard staleDestinations > byDestination.keyCount else { return }
        for (family, keys) in sortedDestinations {
            sortedDestinations[family] = keys.filter { targets(at: $0) != nil }
        }
        staleDestinations = 0
    }

    /// The targets at a sorted destination, found by its set's number; `nil` once that set went away.
    private func targets(at destination: NumberedDestination) -> SlotSet? {
        byDestination.targets(numbered: Int(destination.number), at: destination.address)
    }

    /// Where `key` is, or would go, among the sorted destinations of its family.
    private func sortedPosition(of key: AddressKey) -> Int {
        Self.firstPosition(in: sortedDestinations[key.isIPv6] ?? []) { !$0.precedes(key) }
    }

    /// The first position in `sorted` where `isAtOrAfter` holds (it holds from there on).
    private static func firstPosition(
        in sorted: [NumberedDestination], where isAtOrAfter: (AddressKey) -> Bool
    ) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAfter(sorted[middle].address) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
