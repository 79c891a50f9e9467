/// An address without its zone, as a ``TargetDependency`` holds it and ``DependencyIndex`` keys its sets and sorts
/// its destinations.
///
/// 24 bytes where an ``IPAddress`` takes 40 (it holds its zone inline), and quicker to hash: each of 10,000
/// listening targets has at least one in the index's tables, and a default route's change moves them all.
package struct AddressKey: Hashable, Sendable {
    /// Bytes 0–7 and 8–15 as big-endian integers, as ``IPAddress`` keeps them: numeric order is byte order.
    package let head: UInt64
    package let tail: UInt64
    package let isIPv6: Bool

    /// Whether this key comes before `other` in byte order; both are of one family.
    func precedes(_ other: AddressKey) -> Bool {
        head != other.head ? head < other.head : tail < other.tail
    }
}
