import Synchronization

/// Whether the last synchronous read of an IPv4 address found no route of its own.
///
/// Such a read also needs the internet probes' answers: on an IPv6-only network NAT64 may carry the address.
/// While this hint holds, the next IPv4 read sends the probes in the same `send` as its own lookup, so a
/// repeated unrouted read costs one round trip, as a routed one does. Only the batching follows the hint:
/// every answer a read uses is asked for fresh, so a wrong guess costs two lookups, never a stale answer.
final class UnroutedReadHint: Sendable {
    private let lastReadWasUnrouted = Atomic<Bool>(false)

    /// Whether the next IPv4 read should ask the probes along with its own lookup.
    var expectsUnrouted: Bool { lastReadWasUnrouted.load(ordering: .relaxed) }

    /// Records how the latest IPv4 read came out.
    func record(unrouted: Bool) { lastReadWasUnrouted.store(unrouted, ordering: .relaxed) }
}
