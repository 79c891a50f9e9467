/// NAT64 in the evaluation: an IPv4 address no route carries may still be reachable on an IPv6-only network,
/// through the address a NAT64 prefix synthesizes for it (SEMANTICS.md). Whether it is depends only on the
/// internet's routes and what the network provisions, so it is worked out once per monitor pass.
extension TargetEvaluator {
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

    /// What a synchronous read asked along with its own lookup (see ``UnroutedReadHint``).
    struct ProbesAlong {
        /// The internet probes' answers, IPv4 first, when they went along.
        var answers: ArraySlice<RouteAnswer>? = nil
        /// The kernel client's change mark taken before they were asked.
        var mark: Int? = nil
        /// The address synthesized with a known plan's prefix, and its answer, when it went along instead.
        var synthesized: (address: IPAddress, answer: RouteAnswer)? = nil
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
    func evaluateThroughNAT64(_ address: IPAddress, along: ProbesAlong = ProbesAlong()) throws(ReachabilityError)
        -> ReachabilitySnapshot?
    {
        switch try nat64Plan(along: along) {
        case .notCarried:
            return nil
        case .awaitingDiscovery:
            var waiting = Self.unreachable(.address(address))
            waiting.path.awaitsNAT64Discovery = true
            return waiting
        case .synthesized(let prefix):
            let synthesized = try prefix.synthesize(address)
            // Asked in the read's own exchange when a plan that still held sent it along: as fresh as any answer.
            let answer =
                if let sent = along.synthesized, sent.address == synthesized { sent.answer } else { try lookup(synthesized) }
            var result = try snapshot(.address(address), family: .ipv6, answer)
            result.path.synthesizedAddress = synthesized
            return result
        }
    }

    /// How unrouted IPv4 addresses are carried now: from the probes a synchronous read asked `along`, or from
    /// what it knows already; else the pass's memo when there is one; else worked out.
    private func nat64Plan(along: ProbesAlong) throws(ReachabilityError) -> NAT64Plan {
        // Unwrapped, never compared with nil: `==` on an optional slice destroys a tuple of two through metadata.
        if let answers = along.answers, let ipv4 = answers.first {
            return try nat64Plan(ipv4: ipv4, ipv6: answers.dropFirst().first, askedAfter: along.mark)
        }
        if let unroutedHint {
            // A synchronous read, whose own lookup has just read every change the kernel told of.
            let mark = try queries.changeMark()
            if let known = unroutedHint.knownPlan(at: mark, provisioning: { provisioning.revision }) { return known }
            if unroutedHint.wasIPv4InternetUsable {
                return try nat64Plan(ipv4: lookup(Self.internetProbeIPv4), ipv6: nil, askedAfter: mark)
            }
            let answers = try internetProbeAnswers()
            return try nat64Plan(ipv4: answers.ipv4, ipv6: answers.ipv6, askedAfter: mark)
        }
        if let known = passMemo?.nat64 { return known }
        let answers = try internetProbeAnswers()
        let plan = try nat64Plan(ipv4: answers.ipv4, ipv6: answers.ipv6, askedAfter: nil)
        passMemo?.nat64 = plan
        return plan
    }

    /// How unrouted IPv4 addresses are carried, given the internet probes' answers, asked after the change mark
    /// was `mark`; the IPv6 one is asked now when it is needed and did not come along.
    private func nat64Plan(ipv4 ipv4Answer: RouteAnswer, ipv6 ipv6Answer: RouteAnswer?, askedAfter mark: Int?)
        throws(ReachabilityError) -> NAT64Plan
    {
        // Beside a usable IPv4 internet NAT64 plays no part: its flags settle that, no interface described.
        let ipv4IsUsable = try isReachable(ipv4Answer)
        unroutedHint?.record(ipv4InternetUsable: ipv4IsUsable, at: mark)
        guard !ipv4IsUsable else { return .notCarried }
        // Taken before the provisions are read: a change after it moves it, so the plan is not kept past that.
        let revision = unroutedHint == nil ? 0 : provisioning.revision
        // A read asks the IPv6 probe along unless the IPv4 internet was usable last time; then it is asked now.
        let answer = if let ipv6Answer { ipv6Answer } else { try lookup(Self.internetProbeIPv6) }
        let ipv6 = try snapshot(.internet, family: .ipv6, answer)
        let provisions = ipv6.status.isReachable ? provisions(ipv4IsReachable: false, ipv6: ipv6) : nil
        let plan: NAT64Plan
        if let prefix = provisions?.nat64Prefixes.first?.prefix {
            plan = .synthesized(prefix)
        } else {
            plan = provisions?.isDiscovering == true ? .awaitingDiscovery : .notCarried
        }
        unroutedHint?.record(plan, at: mark, provisioning: revision)
        return plan
    }
}
