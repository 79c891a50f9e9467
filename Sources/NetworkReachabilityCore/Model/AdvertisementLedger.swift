import NetworkReachabilityPOSIX

/// What one interface's router advertisements leave in force over time: the summary, plus when each
/// prefix and the DNS servers lapse, on a monotonic clock in milliseconds.
///
/// The kernel keeps no copy of advertisements, so a running monitor keeps this one per interface.
struct AdvertisementLedger: Sendable, Hashable {
    /// What is in force now.
    private(set) var summary = RouterAdvertisementSummary(folding: [])
    private var prefixDeadlines: [NAT64Prefix: Int] = [:]
    /// `nil` while no servers are in force or their lifetime is infinite.
    private var dnsDeadline: Int?

    /// RFC 8106 §5.1: an all-ones RDNSS lifetime means infinity.
    static let infiniteDNSLifetime = Duration.seconds(Int(UInt32.max))

    /// Applies an advertisement heard at `now`; returns whether what is in force changed (a repeat of the
    /// same advertisement only pushes the deadlines out).
    mutating func apply(_ advertisement: RouterAdvertisement, at now: Int) -> Bool {
        let before = summary
        summary.fold(advertisement)
        for advertised in advertisement.nat64Prefixes {
            prefixDeadlines[advertised.prefix] =
                advertised.lifetime > .zero ? Int(advertised.lifetime.after(Int64(now))) : nil
        }
        if let lifetime = advertisement.dnsLifetime {
            dnsDeadline = lifetime > .zero && lifetime < Self.infiniteDNSLifetime ? Int(lifetime.after(Int64(now))) : nil
        }
        return summary != before
    }

    /// Drops what has lapsed by `now`; returns whether anything did.
    mutating func expire(at now: Int) -> Bool {
        let lapsed = Set(prefixDeadlines.filter { $0.value <= now }.keys)
        var changed = !lapsed.isEmpty
        summary.nat64Prefixes.removeAll { lapsed.contains($0.prefix) }
        for prefix in lapsed { prefixDeadlines[prefix] = nil }
        if let deadline = dnsDeadline, deadline <= now {
            dnsDeadline = nil
            changed = changed || !summary.dnsServers.isEmpty
            summary.dnsServers = []
        }
        return changed
    }

    /// The earliest moment something lapses, if anything will.
    var nextDeadline: Int? { (Array(prefixDeadlines.values) + (dnsDeadline.map { [$0] } ?? [])).min() }

}
