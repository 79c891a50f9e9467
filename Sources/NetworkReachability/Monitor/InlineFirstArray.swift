/// An array that keeps its first element inline, and only the others in an `Array`.
///
/// Nearly every listening object has one consumer; as an array of one, each object's consumers cost it an
/// allocation of about 100 bytes, header included. Order is kept, as in an array.
struct InlineFirstArray<Element>: RandomAccessCollection, MutableCollection {
    private var head: Element?
    /// The elements after `head`; empty whenever `head` is `nil`.
    private var tail: [Element] = []

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { head == nil ? 0 : 1 + tail.count }

    subscript(position: Int) -> Element {
        get {
            precondition(indices.contains(position), "index out of range")
            return position == 0 ? head! : tail[position - 1]
        }
        _modify {
            precondition(indices.contains(position), "index out of range")
            if position == 0 { yield &head! } else { yield &tail[position - 1] }
        }
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
