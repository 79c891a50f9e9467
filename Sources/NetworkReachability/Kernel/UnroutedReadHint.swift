import Synchronization

/// Whether the last synchronous read of an IPv4 address found no route of its own, and what such a read last
/// learned of the IPv4 internet.
///
/// Such a read also needs to know whether NAT64 on an IPv6-only network carries the address, which takes the
/// internet probes' answers. While this hint holds, the next IPv4 read sends the probes in the same `send` as
/// its own lookup, so a repeated unrouted read costs one round trip, as a routed one does. Beside a usable IPv4
/// internet NAT64 plays no part, so only the IPv4 probe goes along then; and once the IPv4 internet was found
/// usable, that stands for as long as the kernel client's change mark (``RouteQuerying/changeMark()``) stays
/// the same: then the read sends its own lookup alone. Where the IPv4 internet is not usable, the NAT64 plan
/// (``TargetEvaluator/NAT64Plan``) stands while both the change mark and the provisioning revision do: then
/// the read sends its own lookup and, with a prefix, its synthesized address's, in one round trip. Only the
/// batching follows the hint, and what it keeps is exact, so a wrong guess costs one more round trip, never a
/// stale answer.
final class UnroutedReadHint: Sendable {
    private let lastReadWasUnrouted = Atomic<Bool>(false)
    private let ipv4InternetWasUsable = Atomic<Bool>(false)
    /// The change mark from before the IPv4 internet's route was asked and found usable; -1 when it was not.
    private let ipv4InternetUsableMark = Atomic<Int>(-1)
    /// The NAT64 plan last worked out beside an unusable IPv4 internet, and after which mark and revision.
    private let knownPlan = Locked<KnownPlan?>(nil)

    private struct KnownPlan {
        let mark: Int
        let provisioning: Int
        let plan: TargetEvaluator.NAT64Plan
    }

    /// Whether the latest IPv4 read found no route of its own: the next one should ask the probes along.
    var expectsUnrouted: Bool { lastReadWasUnrouted.load(ordering: .relaxed) }

    /// Whether the IPv4 internet was usable when an unrouted read last asked: then, while nothing is known
    /// (``knownPlan(at:provisioning:)``), only its probe goes along with the next read's lookup, else both.
    var wasIPv4InternetUsable: Bool { ipv4InternetWasUsable.load(ordering: .relaxed) }

    /// How NAT64 stands while the change mark is `mark`, if a read worked it out after that mark: not at all
    /// beside an IPv4 internet found usable then; else the plan kept, if the provisioning `revision` (asked only
    /// in that case) is the one it was worked out after too.
    func knownPlan(at mark: Int?, provisioning revision: () -> Int) -> TargetEvaluator.NAT64Plan? {
        guard let mark else { return nil }
        if ipv4InternetUsableMark.load(ordering: .relaxed) == mark { return .notCarried }
        let revision = revision()
        return knownPlan.withLock { known in
            guard let known, known.mark == mark, known.provisioning == revision else { return nil }
            return known.plan
        }
    }

    /// Records the NAT64 plan worked out from probes asked after the change mark was `mark`, and from provisions
    /// read after the provisioning revision was `revision`.
    func record(_ plan: TargetEvaluator.NAT64Plan, at mark: Int?, provisioning revision: Int) {
        knownPlan.withLock { $0 = mark.map { KnownPlan(mark: $0, provisioning: revision, plan: plan) } }
    }

    /// Records how the latest IPv4 read came out.
    func record(unrouted: Bool) { lastReadWasUnrouted.store(unrouted, ordering: .relaxed) }

    /// Records whether the IPv4 internet was usable when an unrouted read asked its route, after the change mark
    /// was `mark`.
    func record(ipv4InternetUsable: Bool, at mark: Int?) {
        ipv4InternetWasUsable.store(ipv4InternetUsable, ordering: .relaxed)
        ipv4InternetUsableMark.store(ipv4InternetUsable ? mark ?? -1 : -1, ordering: .relaxed)
    }
}
