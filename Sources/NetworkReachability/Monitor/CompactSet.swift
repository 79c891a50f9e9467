/// A set that holds one element without a heap allocation: the monitor keeps a set of registrations per target,
/// and nearly all of them hold one element, where a `Set` costs an allocation of about 80 bytes. (Sets of
/// targets are ``SlotSet``s, which also turn into bitmaps.)
struct CompactSet<Element: Hashable>: Sequence {
    private enum Storage {
        case empty
        case one(Element)
        case many(Set<Element>)
    }

    private var storage = Storage.empty

    init() {}

    var isEmpty: Bool {
        if case .empty = storage { return true }
        return false
    }

    mutating func insert(_ element: Element) {
        switch storage {
        case .empty:
            storage = .one(element)
        case .one(let only):
            if only != element { storage = .many([only, element]) }
        case .many(var elements):
            storage = .empty  // so that `elements` is the set's only reference, and grows in place
            elements.insert(element)
            storage = .many(elements)
        }
    }

    mutating func remove(_ element: Element) {
        switch storage {
        case .empty:
            return
        case .one(let only):
            if only == element { storage = .empty }
        case .many(var elements):
            storage = .empty
            elements.remove(element)
            storage = elements.isEmpty ? .empty : .many(elements)
        }
    }

    func makeIterator() -> Iterator {
        switch storage {
        case .empty: return Iterator(one: nil, many: nil)
        case .one(let only): return Iterator(one: only, many: nil)
        case .many(let elements): return Iterator(one: nil, many: elements.makeIterator())
        }
    }

    /// Walks the one element, or the set's.
    struct Iterator: IteratorProtocol {
        fileprivate var one: Element?
        fileprivate var many: Set<Element>.Iterator?

        mutating func next() -> Element? {
            if let element = one {
                one = nil
                return element
            }
            return many?.next()
        }
    }
}
