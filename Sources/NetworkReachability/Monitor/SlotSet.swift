/// A set of slot numbers: the small non-negative integers the monitor gives its distinct targets, densely and
/// reused, so that a set of them can be a bitmap.
///
/// After a default route's change, 10,000 targets leave one interface's and one source address's set and join
/// others; in a `Set<Int>` each move hashes (most of the dependency index's cost). So a set holds one element
/// inline, a few in a `Set`, and turns into a bitmap once the bitmap is no larger than 8 bytes per element,
/// which a hash set never is; it turns back when it thins out to a quarter of that.
struct SlotSet: Sequence {
    private enum Storage {
        case empty
        case one(Int)
        /// `highest` bounds the elements from above (it is not lowered on removal).
        case sparse(Set<Int>, highest: Int)
        case dense(words: [UInt64], count: Int)
    }

    /// Below this many elements a set stays a hash set, however close together they are.
    private static let smallestDense = 16

    private var storage = Storage.empty

    init() {}

    var isEmpty: Bool {
        if case .empty = storage { return true }
        return false
    }

    /// Whether `slot` is in the set, without walking it.
    func contains(_ slot: Int) -> Bool {
        switch storage {
        case .empty: return false
        case .one(let only): return only == slot
        case .sparse(let elements, _): return elements.contains(slot)
        case .dense(let words, _):
            let (word, bit) = Self.position(of: slot)
            return slot >= 0 && word < words.count && words[word] & bit != 0
        }
    }

    mutating func insert(_ slot: Int) {
        precondition(slot >= 0, "a slot number is never negative")
        switch storage {
        case .empty:
            storage = .one(slot)
        case .one(let only):
            if only != slot { storage = .sparse([only, slot], highest: Swift.max(only, slot)) }
        case .sparse(var elements, let highest):
            storage = .empty  // so that `elements` is the set's only reference, and grows in place
            elements.insert(slot)
            let bound = Swift.max(highest, slot)
            if elements.count >= Self.smallestDense, bound / 64 < elements.count {
                storage = Self.dense(from: elements, highest: bound)
            } else {
                storage = .sparse(elements, highest: bound)
            }
        case .dense(var words, var count):
            storage = .empty
            let (word, bit) = Self.position(of: slot)
            if word >= words.count { words.append(contentsOf: repeatElement(0, count: word + 1 - words.count)) }
            if words[word] & bit == 0 {
                words[word] |= bit
                count += 1
            }
            storage = .dense(words: words, count: count)
        }
    }

    mutating func remove(_ slot: Int) {
        switch storage {
        case .empty:
            return
        case .one(let only):
            if only == slot { storage = .empty }
        case .sparse(var elements, let highest):
            storage = .empty
            elements.remove(slot)
            if elements.count == 1, let only = elements.first {
                storage = .one(only)
            } else if !elements.isEmpty {
                storage = .sparse(elements, highest: highest)
            }
        case .dense(var words, var count):
            let (word, bit) = Self.position(of: slot)
            guard word < words.count, words[word] & bit != 0 else { return }
            storage = .empty
            words[word] &= ~bit
            count -= 1
            if count == 0 { return }
            if words.count > 4 * count || count < Self.smallestDense {
                storage = .sparse(Set(Self.Iterator(words: words)), highest: words.count * 64 - 1)
            } else {
                storage = .dense(words: words, count: count)
            }
        }
    }

    /// Adds every element of `other`; a dense set joins a dense one a word at a time.
    mutating func formUnion(_ other: SlotSet) {
        switch (storage, other.storage) {
        case (_, .empty):
            return
        case (.empty, _):
            self = other
        case (_, .one(let slot)):
            // Most destinations have one target: a default route's change joins 10,000 such sets.
            insert(slot)
        case (.dense(var words, _), .dense(let others, _)):
            storage = .empty
            if others.count > words.count { words.append(contentsOf: repeatElement(0, count: others.count - words.count)) }
            var count = 0
            for index in words.indices {
                if index < others.count { words[index] |= others[index] }
                count += words[index].nonzeroBitCount
            }
            storage = .dense(words: words, count: count)
        default:
            for slot in other { insert(slot) }
        }
    }

    func makeIterator() -> Iterator {
        switch storage {
        case .empty: return Iterator(words: [])
        case .one(let only): return Iterator(one: only)
        case .sparse(let elements, _): return Iterator(sparse: elements.makeIterator())
        case .dense(let words, _): return Iterator(words: words)
        }
    }

    /// Walks the one element, the hash set's, or the bitmap's in ascending order.
    struct Iterator: IteratorProtocol, Sequence {
        private var one: Int?
        private var sparse: Set<Int>.Iterator?
        private let words: [UInt64]
        private var wordIndex = 0
        private var remaining: UInt64 = 0

        fileprivate init(one: Int) {
            self.one = one
            words = []
        }

        fileprivate init(sparse: Set<Int>.Iterator) {
            self.sparse = sparse
            words = []
        }

        fileprivate init(words: [UInt64]) {
            self.words = words
            remaining = words.first ?? 0
        }

        mutating func next() -> Int? {
            if let only = one {
                one = nil
                return only
            }
            if sparse != nil { return sparse?.next() }
            while remaining == 0 {
                wordIndex += 1
                guard wordIndex < words.count else { return nil }
                remaining = words[wordIndex]
            }
            let bit = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            return wordIndex * 64 + bit
        }
    }

    private static func position(of slot: Int) -> (word: Int, bit: UInt64) {
        (slot >> 6, 1 << UInt64(slot & 63))
    }

    private static func dense(from elements: Set<Int>, highest: Int) -> Storage {
        var words = [UInt64](repeating: 0, count: highest / 64 + 1)
        for slot in elements {
            let (word, bit) = position(of: slot)
            words[word] |= bit
        }
        return .dense(words: words, count: elements.count)
    }
}
