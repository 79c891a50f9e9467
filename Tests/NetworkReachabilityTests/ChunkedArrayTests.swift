import Testing

@testable import NetworkReachability

/// The monitor's chunked storage against `Array`, across several chunks.
struct ChunkedArrayTests {
    @Test func behavesAsAnArrayAcrossChunks() {
        var generator = SplitMix64(seed: 0xC4_0E)
        var chunked = ChunkedArray<Int>()
        var reference: [Int] = []
        for step in 0..<5_000 {
            chunked.append(step)
            reference.append(step)
            let position = Int.random(in: reference.indices, using: &generator)
            switch step % 3 {
            case 0:
                chunked[position] = -step
                reference[position] = -step
            case 1:
                let updated = chunked.update(at: position) { element -> Int in
                    element += 1
                    return element
                }
                reference[position] += 1
                #expect(updated == reference[position])
            default:
                #expect(chunked[position] == reference[position])
            }
        }
        #expect(Array(chunked) == reference)
        #expect(chunked.count == reference.count)
        chunked.removeAll()
        #expect(chunked.isEmpty)
    }
}
