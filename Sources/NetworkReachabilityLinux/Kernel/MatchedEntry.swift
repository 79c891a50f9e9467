import NetworkReachabilityCore

/// What an IPv4 destination's lookup matched in the routing tables when the backend asked: a table's entry, or
/// nothing. The backend notes it in the target's dependency (``TargetDependency/backendNote``) and reads it back
/// with the target's next evaluation, so that the targets that matched one changed entry are answered together
/// (``RouteSharing``, which groups ordinary IPv4 unicast addresses only).
///
/// Twelve bytes, so that the note fits an existential's inline buffer (three words) and costs no allocation per
/// target: an `IPPrefix` (35 bytes, for IPv6 and zones) would be boxed on the heap.
struct MatchedEntry: Hashable, Sendable {
    /// The entry's network as a big-endian integer; 0 when nothing matched.
    private let network: UInt32
    /// The entry's prefix length; 0 when nothing matched.
    private let length: UInt8
    /// Whether an entry matched.
    private let matched: Bool
    /// The entry's routing table; 0 (`RT_TABLE_UNSPEC`, never a real table) when nothing matched.
    let table: UInt32

    /// The entry of this routing table with this IPv4 destination prefix; `nil` for an IPv6 prefix, which no group
    /// shares.
    static func entry(table: UInt32, prefix: IPPrefix) -> MatchedEntry? {
        let address = prefix.address
        guard address.family == .ipv4 else { return nil }
        let network = (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(address[byte: $1]) }
        return MatchedEntry(network: network, length: UInt8(prefix.length), matched: true, table: table)
    }

    /// No entry: the tables held nothing for the destination, or only a route that passed it on.
    static let none = MatchedEntry(network: 0, length: 0, matched: false, table: 0)

    /// The entry's destination prefix; `nil` when nothing matched.
    var prefix: IPPrefix? {
        guard matched else { return nil }
        return withUnsafeBytes(of: network.bigEndian) { bytes in
            IPAddress(networkOrder: bytes).map { IPPrefix(address: $0, length: Int(length)) }
        }
    }
}
