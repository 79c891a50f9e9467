import Testing

@testable import NetworkReachability

/// The dependency index's sets by key against a dictionary of `Set`s, as targets join, leave and move, and
/// sets empty and their numbers go to other keys.
struct NumberedSlotSetsTests {
    @Test func matchesADictionaryOfSetsThroughRandomMoves() {
        var generator = SplitMix64(seed: 0x5E75)
        var sets = NumberedSlotSets<Int>()
        var reference: [Int: Set<Int>] = [:]
        var membership: [Int: (key: Int, number: Int)] = [:]  // each target is in one set at most, as in the index
        for _ in 0..<20_000 {
            let target = Int.random(in: 0..<6, using: &generator)
            if let (key, number) = membership[target] {
                // By number, as for interfaces and sources, or by key, as for destinations.
                let emptied =
                    Bool.random(using: &generator)
                    ? sets.remove(target, fromSetNumbered: number) : sets.remove(target, at: key)
                reference[key]?.remove(target)
                if reference[key]?.isEmpty == true { reference[key] = nil }
                #expect(emptied == (reference[key] == nil))
                membership[target] = nil
            }
            // Often back to one of the two keys used last: the case the shortcut serves (3 keys, so it also misses).
            if Int.random(in: 0..<4, using: &generator) > 0 {
                let key = Int.random(in: 0..<3, using: &generator)
                let (number, isNew) = sets.insert(target, at: key)
                #expect(isNew == (reference[key] == nil))
                membership[target] = (key, number)
                reference[key, default: []].insert(target)
            }
            for key in 0..<3 {
                #expect(Set(sets[key] ?? SlotSet()) == reference[key] ?? [], "key \(key)")
                #expect((sets[key] == nil) == (reference[key] == nil), "key \(key)")
            }
        }
    }

    @Test func aKeptNumberFindsItsKeysSetOnlyWhileTheSetIsThatKeys() {
        var sets = NumberedSlotSets<Int>()
        let (number, _) = sets.insert(1, at: 10)
        #expect(sets.targets(numbered: number, at: 10).map(Set.init) == [1])
        #expect(sets.targets(numbered: number, at: 11) == nil)  // another key
        #expect(sets.targets(numbered: number + 1, at: 10) == nil)  // a number never handed out
        sets.remove(1, at: 10)
        #expect(sets.targets(numbered: number, at: 10) == nil)  // the set went away
        let (reused, _) = sets.insert(2, at: 20)
        #expect(reused == number)
        #expect(sets.targets(numbered: number, at: 10) == nil)  // its number went to another key
        #expect(sets.targets(numbered: number, at: 20).map(Set.init) == [2])
    }
}
