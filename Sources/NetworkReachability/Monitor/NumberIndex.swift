/// A hash table from keys to small numbers that holds only the numbers: each number's key is kept elsewhere (the
/// monitor's slot of that number holds its target; a numbered set holds its key) and read through `keyOf`.
///
/// A `Dictionary` from a 40-byte target to its slot number kept the key a second time, and with its slack took
/// about 80 bytes per listening target; this takes 4 bytes per bucket. Open addressing with linear probing, and
/// deletion by shifting back, so there are no tombstones. At most three quarters of the buckets are used.
struct NumberIndex {
    private static let empty: Int32 = -1

    private var buckets: [Int32] = []
    private(set) var count = 0

    init() {}

    /// The number whose key is `key`, if any.
    func number<Key: Hashable>(of key: Key, keyOf: (Int) -> Key) -> Int? {
        guard !buckets.isEmpty else { return nil }
        var position = home(of: key)
        while buckets[position] != Self.empty {
            let number = Int(buckets[position])
            if keyOf(number) == key { return number }
            position = (position + 1) & (buckets.count - 1)
        }
        return nil
    }

    /// Adds `number`, whose key (`keyOf(number)`) is not in the index yet.
    mutating func insert<Key: Hashable>(_ number: Int, keyOf: (Int) -> Key) {
        precondition(number >= 0 && number < Int(Int32.max), "number out of range")
        if (count + 1) * 4 > buckets.count * 3 { grow(keyOf: keyOf) }
        place(Int32(number), at: home(of: keyOf(number)))
        count += 1
    }

    /// Removes the number whose key is `key`; returns it, if there was one.
    @discardableResult
    mutating func remove<Key: Hashable>(_ key: Key, keyOf: (Int) -> Key) -> Int? {
        guard !buckets.isEmpty else { return nil }
        let mask = buckets.count - 1
        var hole = home(of: key)
        while buckets[hole] != Self.empty, keyOf(Int(buckets[hole])) != key { hole = (hole + 1) & mask }
        guard buckets[hole] != Self.empty else { return nil }
        let removed = Int(buckets[hole])
        // Shift back each later entry of the run whose home does not lie after the hole (cyclically).
        var next = (hole + 1) & mask
        while buckets[next] != Self.empty {
            let home = home(of: keyOf(Int(buckets[next])))
            if (next - home) & mask >= (next - hole) & mask {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = Self.empty
        count -= 1
        return removed
    }

    /// Every number in the index, in no particular order.
    var numbers: [Int] { buckets.filter { $0 != Self.empty }.map(Int.init) }

    mutating func removeAll() {
        buckets = []
        count = 0
    }

    private func home<Key: Hashable>(of key: Key) -> Int { key.hashValue & (buckets.count - 1) }

    private mutating func place(_ number: Int32, at start: Int) {
        var position = start
        while buckets[position] != Self.empty { position = (position + 1) & (buckets.count - 1) }
        buckets[position] = number
    }

    private mutating func grow<Key: Hashable>(keyOf: (Int) -> Key) {
        let old = buckets
        buckets = Array(repeating: Self.empty, count: max(16, buckets.count * 2))
        for number in old where number != Self.empty { place(number, at: home(of: keyOf(Int(number)))) }
    }
}
