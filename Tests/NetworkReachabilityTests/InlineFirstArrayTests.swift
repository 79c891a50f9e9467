import Testing

@testable import NetworkReachability

/// The hub's consumer list against `Array`, through every change between none, one and several elements.
struct InlineFirstArrayTests {
    @Test func behavesAsAnArrayThroughRandomAppendsRemovalsAndUpdates() {
        var generator = SplitMix64(seed: 0xF1_257)
        var inline = InlineFirstArray<Int>()
        var reference: [Int] = []
        for step in 0..<20_000 {
            switch Int.random(in: 0..<5, using: &generator) {
            case 0, 1:
                inline.append(step)
                reference.append(step)
            case 2 where !reference.isEmpty:
                // Often the first, which moves the next one inline.
                let position = Bool.random(using: &generator) ? 0 : Int.random(in: reference.indices, using: &generator)
                #expect(inline.remove(at: position) == reference.remove(at: position))
            case 3 where !reference.isEmpty:
                let position = Int.random(in: reference.indices, using: &generator)
                inline.update(at: position) { $0 += 1 }
                reference[position] += 1
            case 4 where reference.count > 3 && Int.random(in: 0..<8, using: &generator) == 0:
                inline.removeAll()
                reference.removeAll()
            default:
                break
            }
            #expect(Array(inline) == reference)
            #expect(inline.count == reference.count && inline.isEmpty == reference.isEmpty)
            let probe = Int.random(in: 0...step + 1, using: &generator)
            #expect(inline.firstIndex { $0 >= probe } == reference.firstIndex { $0 >= probe })
        }
    }
}
