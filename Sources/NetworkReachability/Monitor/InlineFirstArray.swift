/// An array that keeps its first element inline, and only the others in an `Array`.
///
/// Nearly every listening object has one consumer; as an array of one, each object's consumers cost it an
/// allocation of about 100 bytes, header included. Order is kept, as in an array.
struct InlineFirstArray<Element>: RandomAccessCollection {
    private var head: Element?
    /// The elements after `head`; empty whenever `head` is `nil`.
    private var tail: [Element] = []

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { head == nil ? 0 : 1 + tail.count }

    subscript(position: Int) -> Element {
        precondition(indices.contains(position), "index out of range")
        return position == 0 ? head! : tail[position - 1]
    }

    /// Runs `body` on the element at `position`, in place.
    ///
    /// A method, not a `_modify` accessor: the accessor's coroutine allocated its frame on the heap, once for
    /// each element changed, 10,000 times a pass.
    mutating func update<Result>(at position: Int, _ body: (inout Element) -> Result) -> Result {
        precondition(indices.contains(position), "index out of range")
        if position == 0 {
            // Taken out and put back, so the element is never copied.
            var element = head.take()!
            defer { head = element }
            return body(&element)
        }
        return body(&tail[position - 1])
    }

    mutating func append(_ element: Element) {
        if head == nil { head = element } else { tail.append(element) }
    }

    /// Removes and returns the element at `position`; the ones after it move up.
    @discardableResult
    mutating func remove(at position: Int) -> Element {
        precondition(indices.contains(position), "index out of range")
        guard position == 0 else { return tail.remove(at: position - 1) }
        let removed = head!
        head = tail.isEmpty ? nil : tail.removeFirst()
        return removed
    }

    mutating func removeAll() {
        head = nil
        tail = []
    }
}

extension InlineFirstArray: Sendable where Element: Sendable {}
