/// NAT64 in the evaluation: an IPv4 address no route carries may still be reachable on an IPv6-only network,
/// through the address a NAT64 prefix synthesizes for it (SEMANTICS.md). Whether it is depends only on the
/// internet's routes and what the network provisions, so an evaluator works it out once.
extension TargetEvaluator {
    /// How an IPv4 address without a route of its own is carried, given the internet's routes and what the
    /// network provisions: the same for every such address at one moment.
    enum NAT64Plan {
        /// Not through NAT64: IPv4 works, or IPv6 does not either.
        case notCarried
        /// Not at all: the network is IPv6-only, and knows no NAT64 prefix and is discovering none.
        case noPrefix
        /// The first DNS64 discovery of this IPv6-only network runs.
        case awaitingDiscovery
        /// Through its address synthesized with this prefix.
        case synthesized(NAT64Prefix)
    }

    /// An IPv4 address no route carries, on an IPv6-only network with a known NAT64 prefix: evaluated through
    /// its synthesized address (RFC 6052), with the first prefix (advertised ones first). `nil` when the
    /// network is not IPv6-only or knows no prefix; unknown while the first DNS64 discovery runs.
    func evaluateThroughNAT64(_ address: IPAddress) throws(ReachabilityError) -> ReachabilitySnapshot? {
        switch try nat64Plan() {
        case .notCarried:
            return nil
        case .noPrefix:
            return Self.unreachable(.address(address), .ipv6OnlyWithoutNAT64)
        case .awaitingDiscovery:
            var waiting = Self.unreachable(.address(address), .nat64DiscoveryPending)
            waiting.path.awaitsNAT64Discovery = true
            return waiting
        case .synthesized(let prefix):
            let synthesized = try prefix.synthesize(address)
            let answer = try queries.lookupRoute(to: synthesized, from: nil, interfaceIndex: nil)
            var result = try snapshot(.address(address), family: .ipv6, answer)
            result.path.synthesizedAddress = synthesized
            return result
        }
    }

    /// How unrouted IPv4 addresses are carried now: worked out from the internet's routes once per evaluator.
    private func nat64Plan() throws(ReachabilityError) -> NAT64Plan {
        if let knownNAT64Plan { return knownNAT64Plan }
        var plan = NAT64Plan.notCarried
        // Beside a usable IPv4 internet NAT64 plays no part, and the IPv6 internet need not be asked.
        if try !internet(.ipv4).status.isReachable, case let ipv6 = try internet(.ipv6), ipv6.status.isReachable {
            let provisions = provisions(ipv4IsReachable: false, ipv6: ipv6)
            if let prefix = provisions.nat64Prefixes.first?.prefix {
                plan = .synthesized(prefix)
            } else {
                plan = provisions.isDiscovering ? .awaitingDiscovery : .noPrefix
            }
        }
        knownNAT64Plan = plan
        return plan
    }
}
