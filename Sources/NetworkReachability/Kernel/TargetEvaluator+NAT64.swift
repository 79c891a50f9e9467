/// NAT64 in the evaluation: an IPv4 address no route carries may still be reachable on an IPv6-only network,
/// through the address a NAT64 prefix synthesizes for it (SEMANTICS.md). Whether it is depends only on the
/// internet's routes and what the network provisions, so it is worked out once per monitor pass.
extension TargetEvaluator {
    /// Holds, for one monitor pass, what every unrouted IPv4 target of the pass would otherwise ask again: the
    /// internet probes' answers, and what they make of NAT64. ``clear()`` before the next pass.
    final class ProbeMemo {
        var answers: [RouteAnswer]?
        var nat64: NAT64Plan?

        /// Forgets the pass's answers: whatever comes next may change them.
        func clear() {
            answers = nil
            nat64 = nil
        }
    }

    /// How an IPv4 address without a route of its own is carried, given the internet's routes and what the
    /// network provisions: the same for every such address at one moment.
    enum NAT64Plan {
        /// Not through NAT64: IPv4 works, IPv6 does not, or no prefix is known and none is being discovered.
        case notCarried
        /// The first DNS64 discovery of this IPv6-only network runs.
        case awaitingDiscovery
        /// Through its address synthesized with this prefix.
        case synthesized(NAT64Prefix)
    }

    /// Whether `answer` makes its destination reachable: its flags only, no interface description.
    private func isReachable(_ answer: RouteAnswer) throws(ReachabilityError) -> Bool {
        guard case .route(let route) = answer, route.type.carriesPackets else { return false }
        let link = try outputLink(of: route)
        return NetworkReachabilityStatus(Self.flags(route: route, link: link, interfaceType: nil)).isReachable
    }

    /// An IPv4 address no route carries, on an IPv6-only network with a known NAT64 prefix: evaluated through
    /// its synthesized address (RFC 6052), with the first prefix (advertised ones first). `nil` when the
    /// network is not IPv6-only or knows no prefix; unknown while the first DNS64 discovery runs.
    func evaluateThroughNAT64(_ address: IPAddress, probes: ArraySlice<RouteAnswer>?) throws(ReachabilityError)
        -> ReachabilitySnapshot?
    {
        switch try nat64Plan(probes: probes) {
        case .notCarried:
            return nil
        case .awaitingDiscovery:
            var waiting = Self.unreachable(.address(address))
            waiting.path.awaitsNAT64Discovery = true
            return waiting
        case .synthesized(let prefix):
            let synthesized = try prefix.synthesize(address)
            var result = try snapshot(.address(address), family: .ipv6, lookup(synthesized))
            result.path.synthesizedAddress = synthesized
            return result
        }
    }

    /// How unrouted IPv4 addresses are carried now: the pass's memo when there is one, else worked out.
    private func nat64Plan(probes: ArraySlice<RouteAnswer>?) throws(ReachabilityError) -> NAT64Plan {
        if probes == nil, let known = probeMemo?.nat64 { return known }
        let ipv4Answer: RouteAnswer
        let ipv6Answer: RouteAnswer?
        if let first = probes?.first {
            (ipv4Answer, ipv6Answer) = (first, probes?.dropFirst().first)
        } else {
            (ipv4Answer, ipv6Answer) = try internetProbeAnswers()
        }
        let plan: NAT64Plan
        // Beside a usable IPv4 internet NAT64 plays no part: its flags settle that, no interface described.
        let ipv4IsUsable = try isReachable(ipv4Answer)
        unroutedHint?.record(ipv4InternetUsable: ipv4IsUsable)
        if ipv4IsUsable {
            plan = .notCarried
        } else {
            // A read asks the IPv6 probe along unless the IPv4 internet was usable last time; then it is asked now.
            let answer = if let ipv6Answer { ipv6Answer } else { try lookup(Self.internetProbeIPv6) }
            let ipv6 = try snapshot(.internet, family: .ipv6, answer)
            let provisions = ipv6.status.isReachable ? provisions(ipv4IsReachable: false, ipv6: ipv6) : nil
            if let prefix = provisions?.nat64Prefixes.first?.prefix {
                plan = .synthesized(prefix)
            } else {
                plan = provisions?.isDiscovering == true ? .awaitingDiscovery : .notCarried
            }
        }
        if probes == nil { probeMemo?.nat64 = plan }
        return plan
    }
}
