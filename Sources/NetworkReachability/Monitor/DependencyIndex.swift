/// Finds the targets a batch of changes can touch without visiting the others: targets are indexed by
/// output interface, by source address and by destination, and the destinations are kept sorted so the
/// targets inside a changed prefix are one binary search away. Work per batch grows with what the batch
/// touches, not with the number of targets.
struct DependencyIndex {
    private var dependencies: [ReachabilityTarget: TargetDependency] = [:]
    private var always: Set<ReachabilityTarget> = []
    private var byInterface: [Int: Set<ReachabilityTarget>] = [:]
    private var bySource: [[UInt8]: Set<ReachabilityTarget>] = [:]
    private var byDestination: [[UInt8]: Set<ReachabilityTarget>] = [:]
    /// The keys of `byDestination` by length (4 or 16 bytes), each sorted bytewise; a key that comes or goes
    /// is inserted or removed in place (a target whose answer flips changes its keys every time).
    private var sortedDestinations: [Int: [[UInt8]]] = [:]

    /// Records what `target`'s latest answer rests on, replacing what it rested on before. Only the parts
    /// that changed are re-indexed: after a default route's removal every target changes, mostly not its
    /// destinations.
    mutating func set(_ dependency: TargetDependency, for target: ReachabilityTarget) {
        let previous = dependencies.updateValue(dependency, forKey: target)
        guard previous != dependency else { return }
        let (oldInterface, oldSource, oldDestinations) = Self.indexedParts(of: previous)
        let (newInterface, newSource, newDestinations) = Self.indexedParts(of: dependency)
        if dependency.always { always.insert(target) } else { always.remove(target) }
        if oldInterface != newInterface {
            if let oldInterface { Self.remove(target, from: &byInterface, at: oldInterface) }
            if let newInterface { byInterface[newInterface, default: []].insert(target) }
        }
        if oldSource != newSource {
            if let oldSource { Self.remove(target, from: &bySource, at: oldSource) }
            if let newSource { bySource[newSource, default: []].insert(target) }
        }
        for key in oldDestinations where !newDestinations.contains(key) {
            if Self.remove(target, from: &byDestination, at: key) { removeSorted(key) }
        }
        for key in newDestinations where !oldDestinations.contains(key) {
            if byDestination[key] == nil { insertSorted(key) }
            byDestination[key, default: []].insert(target)
        }
    }

    /// Forgets `target` (its last registration left).
    mutating func remove(_ target: ReachabilityTarget) {
        guard let previous = dependencies.removeValue(forKey: target) else { return }
        always.remove(target)
        let (interface, source, destinations) = Self.indexedParts(of: previous)
        if let interface { Self.remove(target, from: &byInterface, at: interface) }
        if let source { Self.remove(target, from: &bySource, at: source) }
        for key in destinations where Self.remove(target, from: &byDestination, at: key) { removeSorted(key) }
    }

    /// What the tables hold for a dependency: nothing for one that is always affected.
    private static func indexedParts(of dependency: TargetDependency?) -> (Int?, [UInt8]?, [[UInt8]]) {
        guard let dependency, !dependency.always else { return (nil, nil, []) }
        return (dependency.interfaceIndex, dependency.sourceAddress?.bytes, dependency.destinations.map(\.bytes))
    }

    /// The indexed targets `changes` can touch; targets not indexed yet are the caller's to add.
    func affected(by changes: NetworkChanges) -> Set<ReachabilityTarget> {
        if changes.affectsEverything { return Set(dependencies.keys) }
        var affected = always
        for index in changes.links.union(changes.addressInterfaces) { affected.formUnion(byInterface[index] ?? []) }
        for address in changes.addresses {
            affected.formUnion(bySource[address.bytes] ?? [])
            affected.formUnion(byDestination[address.bytes] ?? [])
        }
        for prefix in changes.routePrefixes {
            let (lowest, highest) = prefix.bounds
            let sorted = sortedDestinations[lowest.count] ?? []
            var position = Self.firstPosition(in: sorted) { !$0.lexicographicallyPrecedes(lowest) }
            while position < sorted.count, !highest.lexicographicallyPrecedes(sorted[position]) {
                affected.formUnion(byDestination[sorted[position]] ?? [])
                position += 1
            }
        }
        return affected
    }

    private mutating func insertSorted(_ key: [UInt8]) {
        let position = Self.firstPosition(in: sortedDestinations[key.count] ?? []) { !$0.lexicographicallyPrecedes(key) }
        sortedDestinations[key.count, default: []].insert(key, at: position)
    }

    private mutating func removeSorted(_ key: [UInt8]) {
        let position = Self.firstPosition(in: sortedDestinations[key.count] ?? []) { !$0.lexicographicallyPrecedes(key) }
        guard sortedDestinations[key.count]?.indices.contains(position) == true,
            sortedDestinations[key.count]?[position] == key
        else { return }
        sortedDestinations[key.count]?.remove(at: position)
    }

    /// The first position in `sorted` where `isAtOrAfter` holds (it holds from there on).
    private static func firstPosition(in sorted: [[UInt8]], where isAtOrAfter: ([UInt8]) -> Bool) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAfter(sorted[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Removes `target` from the set at `key`, dropping an emptied set; whether the key went away.
    @discardableResult
    private static func remove<Key: Hashable>(
        _ target: ReachabilityTarget, from table: inout [Key: Set<ReachabilityTarget>], at key: Key
    ) -> Bool {
        table[key]?.remove(target)
        guard table[key]?.isEmpty == true else { return false }
        table[key] = nil
        return true
    }
}
