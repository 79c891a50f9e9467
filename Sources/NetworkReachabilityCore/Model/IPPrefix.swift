/// An address prefix such as `10.0.0.0/8`: a route's destination, or the part of the address space a change
/// touched. Its address is the network's own (host bits zero), so two prefixes that cover the same addresses are
/// equal.
package struct IPPrefix: Sendable, Hashable, CustomStringConvertible {
    /// The network address: the lowest address of the prefix, without a zone.
    package let address: IPAddress
    /// In a byte, inside the address's padding: each listening target's dependency holds a prefix.
    private let storedLength: UInt8

    /// The prefix length in bits, at most the address's width.
    package var length: Int { Int(storedLength) }

    /// The prefix of `length` bits (clamped to the address's width) that `address` lies in.
    package init(address: IPAddress, length: Int) {
        storedLength = UInt8(min(max(length, 0), address.byteCount * 8))
        self.address = address.prefixBounds(length: Int(storedLength)).lowest
    }

    /// The whole address space of `family`: `0.0.0.0/0` or `::/0`, a default route's destination.
    package static func all(_ family: IPAddress.Family) -> IPPrefix {
        family == .ipv4 ? allIPv4 : allIPv6
    }

    private static let allIPv4 = IPPrefix(address: IPAddress(networkOrder: [0, 0, 0, 0])!, length: 0)
    private static let allIPv6 = IPPrefix(address: IPAddress(networkOrder: [UInt8](repeating: 0, count: 16))!, length: 0)

    /// Whether `candidate` (of either family, any zone) lies inside the prefix.
    package func contains(_ candidate: IPAddress) -> Bool { candidate.sharesPrefix(with: address, length: length) }

    /// Whether every address of the prefix lies inside `other`: `other` is the same prefix or a wider one.
    package func lies(inside other: IPPrefix) -> Bool { other.length <= length && other.contains(address) }

    /// Whether the prefix lies inside `other` and is narrower: a route to it can take some of `other`'s addresses
    /// and leave the rest.
    package func isStrictlyInside(_ other: IPPrefix) -> Bool { length > other.length && other.contains(address) }

    /// `10.0.0.0/8`.
    package var description: String { "\(address)/\(length)" }
}
