import Synchronization

/// Whether the last synchronous read of an IPv4 address found no route of its own, and whether the IPv4
/// internet was usable when such a read last asked.
///
/// Such a read also needs the internet probes' answers: on an IPv6-only network NAT64 may carry the address.
/// While this hint holds, the next IPv4 read sends the probes in the same `send` as its own lookup, so a
/// repeated unrouted read costs one round trip, as a routed one does. Beside a usable IPv4 internet NAT64
/// plays no part, so only the IPv4 probe goes along then: two lookups for the kernel, not three. Only the
/// batching follows the hint: every answer a read uses is asked for fresh, so a wrong guess costs one more
/// round trip, never a stale answer.
final class UnroutedReadHint: Sendable {
    private let lastReadWasUnrouted = Atomic<Bool>(false)
    private let ipv4InternetWasUsable = Atomic<Bool>(false)

    /// The internet probes the next IPv4 read should ask along with its own lookup: none, the IPv4 one, or both.
    var probesToAskAlong: Int {
        guard lastReadWasUnrouted.load(ordering: .relaxed) else { return 0 }
        return ipv4InternetWasUsable.load(ordering: .relaxed) ? 1 : 2
    }

    /// Records how the latest IPv4 read came out.
    func record(unrouted: Bool) { lastReadWasUnrouted.store(unrouted, ordering: .relaxed) }

    /// Records whether the IPv4 internet was usable when an unrouted read last asked.
    func record(ipv4InternetUsable: Bool) { ipv4InternetWasUsable.store(ipv4InternetUsable, ordering: .relaxed) }
}
