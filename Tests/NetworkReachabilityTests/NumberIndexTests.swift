import Testing

@testable import NetworkReachability

/// The index of numbers by their keys against a `Dictionary`, through growth and deletions that shift runs back.
struct NumberIndexTests {
    @Test func findsWhatADictionaryFindsThroughRandomInsertionsAndRemovals() {
        var generator = SplitMix64(seed: 0x1D_E5)
        var index = NumberIndex()
        var keyOfNumber: [Int: Int] = [:]  // where the index's keys live
        var reference: [Int: Int] = [:]  // key -> number
        var nextNumber = 0
        for _ in 0..<30_000 {
            // Few keys, so runs collide, and numbers are reused as in the monitor.
            let key = Int.random(in: 0..<600, using: &generator)
            if let number = reference[key], Bool.random(using: &generator) {
                #expect(index.remove(key) { keyOfNumber[$0]! } == number)
                reference[key] = nil
                keyOfNumber[number] = nil
            } else if reference[key] == nil {
                let number = nextNumber
                nextNumber += 1
                keyOfNumber[number] = key
                index.insert(number) { keyOfNumber[$0]! }
                reference[key] = number
            }
            let probe = Int.random(in: 0..<600, using: &generator)
            #expect(index.number(of: probe) { keyOfNumber[$0]! } == reference[probe])
            #expect(index.count == reference.count)
        }
        #expect(Set(index.numbers) == Set(reference.values))
        for (key, number) in reference { #expect(index.number(of: key) { keyOfNumber[$0]! } == number) }
    }

    @Test func removingAKeyThatIsNotThereChangesNothing() {
        var index = NumberIndex()
        let keys = ["a", "b"]
        #expect(index.remove("a") { keys[$0] } == nil)
        index.insert(0) { keys[$0] }
        #expect(index.remove("b") { keys[$0] } == nil)
        #expect(index.number(of: "a") { keys[$0] } == 0)
        index.removeAll()
        #expect(index.count == 0 && index.number(of: "a") { keys[$0] } == nil)
    }
}
