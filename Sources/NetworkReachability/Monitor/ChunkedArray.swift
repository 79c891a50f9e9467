/// An array kept in chunks of a fixed size that are never moved or grown once made.
///
/// The monitor's slots and the index's dependencies are about 100 bytes per listening target. As arrays, they
/// doubled their storage as targets arrived, and each old buffer was freed. glibc returns a freed buffer of over
/// 128 KiB to the system only while its threshold for that is not raised, and it raises it to the size of each
/// large block freed, such as a pass's delivery list: the old buffers then stayed resident, free, about 150 bytes
/// per target at 10,000 targets. A chunk is allocated once at its full size (under 128 KiB for such elements)
/// and kept.
struct ChunkedArray<Element>: RandomAccessCollection {
    /// A position's chunk is the position shifted right by this; a chunk holds 512 elements.
    private static var shift: Int { 9 }
    private static var chunkSize: Int { 1 << shift }

    private var chunks: [[Element]] = []
    private(set) var count = 0

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < count, "index out of range")
            return chunks[position >> Self.shift][position & (Self.chunkSize - 1)]
        }
        set {
            precondition(position >= 0 && position < count, "index out of range")
            chunks[position >> Self.shift][position & (Self.chunkSize - 1)] = newValue
        }
    }

    /// Runs `body` on the element at `position`, where it is: the getter copies it out, with its references.
    func read<Result>(at position: Int, _ body: (Element) -> Result) -> Result {
        precondition(position >= 0 && position < count, "index out of range")
        return body(chunks[position >> Self.shift][position & (Self.chunkSize - 1)])
    }

    /// Runs `body` on the element at `position`, in place (the setter copies it out and back).
    mutating func update<Result>(at position: Int, _ body: (inout Element) -> Result) -> Result {
        precondition(position >= 0 && position < count, "index out of range")
        return body(&chunks[position >> Self.shift][position & (Self.chunkSize - 1)])
    }

    mutating func append(_ element: Element) {
        if count & (Self.chunkSize - 1) == 0 {
            var chunk: [Element] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[count >> Self.shift].append(element)
        count += 1
    }

    mutating func removeAll() {
        chunks = []
        count = 0
    }
}
