import Testing

@testable import NetworkReachability

/// The monitor's small set against `Set`, through every change between none, one and many elements.
struct CompactSetTests {
    @Test func behavesAsASetThroughRandomInsertionsAndRemovals() {
        var generator = SplitMix64(seed: 0xC0_5E7)
        var compact = CompactSet<Int>()
        var reference = Set<Int>()
        for _ in 0..<20_000 {
            // A small range, so that the set keeps falling back to one element and to none.
            let element = Int.random(in: 0..<4, using: &generator)
            if Bool.random(using: &generator) {
                compact.insert(element)
                reference.insert(element)
            } else {
                compact.remove(element)
                reference.remove(element)
            }
            #expect(Set(compact) == reference)
            #expect(Array(compact).count == reference.count)  // each element once
            #expect(compact.isEmpty == reference.isEmpty)
            #expect(compact.contains(element) == reference.contains(element))
        }
    }

    @Test func insertingTheOnlyElementAgainKeepsOne() {
        var compact = CompactSet<String>()
        compact.insert("a")
        compact.insert("a")
        #expect(Array(compact) == ["a"])
        compact.remove("b")
        #expect(Array(compact) == ["a"])
        compact.remove("a")
        #expect(compact.isEmpty)
        #expect(Array(compact).isEmpty)
    }
}
