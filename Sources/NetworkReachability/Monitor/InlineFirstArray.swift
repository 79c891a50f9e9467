/// An array that keeps its first element inline, and only the others in an `Array`.
///
/// Nearly every listening object has one consumer, every slot one registration, and most dependencies one
/// destination; as arrays of one, each cost every listening target an allocation (about 100 bytes for the
/// consumers), and the destinations one more allocation each pass. Order is kept, as in an array.
package struct InlineFirstArray<Element>: RandomAccessCollection {
    private var head: Element?
    /// The elements after `head`; empty whenever `head` is `nil`.
    private var tail: [Element] = []

    package init() {}

    /// `first`, then the elements of `rest`, whose storage is shared, not copied: a constant tail costs no
    /// allocation.
    package init(first: Element, rest: [Element]) {
        head = first
        tail = rest
    }

    /// The elements of `elements`, in order.
    package init(_ elements: some Sequence<Element>) {
        for element in elements { append(element) }
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { head == nil ? 0 : 1 + tail.count }

    package subscript(position: Int) -> Element {
        precondition(indices.contains(position), "index out of range")
        return position == 0 ? head! : tail[position - 1]
    }

    /// Runs `body` on the element at `position`, in place.
    ///
    /// A method, not a `_modify` accessor: the accessor's coroutine allocated its frame on the heap, once for
    /// each element changed, 10,000 times a pass.
    package mutating func update<Result>(at position: Int, _ body: (inout Element) -> Result) -> Result {
        precondition(indices.contains(position), "index out of range")
        if position == 0 {
            // Taken out and put back, so the element is never copied.
            var element = head.take()!
            defer { head = element }
            return body(&element)
        }
        return body(&tail[position - 1])
    }

    /// The position of the first element that satisfies `predicate`, each looked at where it is: the
    /// collection's own `firstIndex(where:)` and `contains(where:)` copy the whole array into an iterator, and each
    /// element out of it, with their references (a queued delivery asks this of its object's consumers).
    package func firstIndex(where predicate: (Element) throws -> Bool) rethrows -> Int? {
        guard let head else { return nil }
        if try predicate(head) { return 0 }
        return try tail.firstIndex(where: predicate).map { $0 + 1 }
    }

    package mutating func append(_ element: Element) {
        if head == nil { head = element } else { tail.append(element) }
    }

    /// Removes and returns the element at `position`; the ones after it move up.
    @discardableResult
    package mutating func remove(at position: Int) -> Element {
        precondition(indices.contains(position), "index out of range")
        guard position == 0 else { return tail.remove(at: position - 1) }
        let removed = head!
        head = tail.isEmpty ? nil : tail.removeFirst()
        return removed
    }

    package mutating func removeAll() {
        head = nil
        tail = []
    }
}

extension InlineFirstArray: Sendable where Element: Sendable {}

extension InlineFirstArray: Equatable where Element: Equatable {
    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.head == rhs.head && lhs.tail == rhs.tail }
}

extension InlineFirstArray: ExpressibleByArrayLiteral {
    /// The elements of a literal, which go through an `Array` first: for tests and code that runs rarely; a hot
    /// path appends instead.
    package init(arrayLiteral elements: Element...) {
        for element in elements { append(element) }
    }
}
