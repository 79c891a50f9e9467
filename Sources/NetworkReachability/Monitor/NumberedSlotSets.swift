/// Sets of targets by key (an interface, a source address, a destination), each set with a number its members
/// can keep, so a target leaves its set without hashing the key.
///
/// After a default route's change 10,000 targets leave one interface's set and join another's, one after the
/// other, and as many join or leave the internet probes' sets, IPv4's and IPv6's in turn: leaving goes by
/// number, and either of the two keys used last (joining or leaving by key) skips the hash table too.
struct NumberedSlotSets<Key: Hashable> {
    /// One numbered set and the key it belongs to; `key` is `nil` while the number is free.
    private struct Bucket {
        var key: Key?
        var targets = SlotSet()
    }

    /// Each key's set number, found through the buckets' own keys: a dictionary kept every key a second time.
    private var numbers = NumberIndex()
    /// By number; an emptied set's number is free again.
    private var buckets: [Bucket] = []
    private var freeNumbers: [Int] = []
    /// The two keys used last and their numbers, the latest first.
    private var lastUsed: (key: Key, number: Int)?
    private var usedBefore: (key: Key, number: Int)?

    /// How many keys have a set.
    var keyCount: Int { numbers.count }

    /// The targets at `key`, if any.
    subscript(key: Key) -> SlotSet? {
        numbers.number(of: key) { buckets[$0].key! }.map { buckets[$0].targets }
    }

    /// The targets of the set numbered `number`, if it is still `key`'s: a set number kept beside a key finds the
    /// set without hashing the key, and a number that went to another key since finds nothing.
    func targets(numbered number: Int, at key: Key) -> SlotSet? {
        buckets.indices.contains(number) && buckets[number].key == key ? buckets[number].targets : nil
    }

    /// Adds `target` to the set at `key`; returns the set's number, which ``remove(_:fromSetNumbered:)`` takes,
    /// and whether the set is new.
    @discardableResult
    mutating func insert(_ target: Int, at key: Key) -> (number: Int, isNew: Bool) {
        let number: Int
        var isNew = false
        if let existing = setNumber(of: key) {
            number = existing
        } else if let free = freeNumbers.popLast() {
            (number, isNew) = (free, true)
            buckets[free].key = key
            numbers.insert(free) { buckets[$0].key! }
        } else {
            (number, isNew) = (buckets.count, true)
            buckets.append(Bucket(key: key))
            numbers.insert(number) { buckets[$0].key! }
        }
        remember(key, number)
        buckets[number].targets.insert(target)
        return (number, isNew)
    }

    /// Takes `target` out of the set at `key`; whether the set emptied and went away.
    @discardableResult
    mutating func remove(_ target: Int, at key: Key) -> Bool {
        guard let number = setNumber(of: key) else { return false }
        remember(key, number)
        return remove(target, fromSetNumbered: number)
    }

    /// Takes `target` out of the set numbered `number`; whether the set emptied and went away.
    @discardableResult
    mutating func remove(_ target: Int, fromSetNumbered number: Int) -> Bool {
        buckets[number].targets.remove(target)
        guard buckets[number].targets.isEmpty, let key = buckets[number].key else { return false }
        numbers.remove(key) { buckets[$0].key! }  // while the bucket still holds it
        buckets[number].key = nil
        freeNumbers.append(number)
        if lastUsed?.number == number { lastUsed = nil }
        if usedBefore?.number == number { usedBefore = nil }
        return true
    }

    /// The number of `key`'s set, if it has one: from the two keys used last without hashing, else the table.
    private func setNumber(of key: Key) -> Int? {
        if let lastUsed, lastUsed.key == key { return lastUsed.number }
        if let usedBefore, usedBefore.key == key { return usedBefore.number }
        return numbers.number(of: key) { buckets[$0].key! }
    }

    private mutating func remember(_ key: Key, _ number: Int) {
        guard lastUsed?.key != key else { return }
        usedBefore = lastUsed
        lastUsed = (key, number)
    }
}
