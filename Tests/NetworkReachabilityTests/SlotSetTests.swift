import Testing

@testable import NetworkReachability

/// The monitor's set of slot numbers against `Set`, through every change between none, one, a hash set and a
/// bitmap, and back.
struct SlotSetTests {
    /// Ranges that keep a set small, that make it dense, and that leave it sparse however many it holds.
    @Test(arguments: [4, 100, 2_000, 100_000])
    func behavesAsASetThroughRandomInsertionsAndRemovals(range: Int) {
        var generator = SplitMix64(seed: 0x5107 &+ UInt64(range))
        var slots = SlotSet()
        var reference = Set<Int>()
        for step in 0..<20_000 {
            // Phases that mostly fill, then mostly empty the set, so that it crosses each threshold both ways.
            let filling = (step / 2_500).isMultiple(of: 2)
            let slot = Int.random(in: 0..<range, using: &generator)
            if Int.random(in: 0..<10, using: &generator) < (filling ? 8 : 2) {
                slots.insert(slot)
                reference.insert(slot)
            } else {
                slots.remove(slot)
                reference.remove(slot)
            }
            #expect(slots.isEmpty == reference.isEmpty)
            if step % 97 == 0 {
                let elements = Array(slots)
                #expect(elements.count == reference.count)  // each element once
                #expect(Set(elements) == reference)
            }
        }
    }

    @Test func aDenseSetWalksItsElementsInAscendingOrder() {
        var slots = SlotSet()
        for slot in stride(from: 999, through: 0, by: -3) { slots.insert(slot) }
        #expect(Array(slots) == Array(stride(from: 0, through: 999, by: 3)))
        slots.remove(0)
        slots.remove(999)
        #expect(Array(slots) == Array(stride(from: 3, through: 996, by: 3)))
    }

    @Test(arguments: [(1, 1), (1, 40), (40, 1), (300, 1), (40, 40), (0, 40), (40, 0), (300, 5_000)])
    func unionHoldsTheElementsOfBoth(firstCount: Int, secondCount: Int) {
        var generator = SplitMix64(seed: UInt64(firstCount * 100_003 + secondCount))
        let first = Set((0..<firstCount).map { _ in Int.random(in: 0..<512, using: &generator) })
        let second = Set((0..<secondCount).map { _ in Int.random(in: 0..<8_192, using: &generator) })
        var union = SlotSet()
        for slot in first { union.insert(slot) }
        var other = SlotSet()
        for slot in second { other.insert(slot) }
        union.formUnion(other)
        #expect(Set(union) == first.union(second))
        #expect(Array(union).count == first.union(second).count)
        #expect(Set(other) == second)  // the argument is left as it was
        union.insert(9_000)
        #expect(!other.contains(9_000))
    }
}
