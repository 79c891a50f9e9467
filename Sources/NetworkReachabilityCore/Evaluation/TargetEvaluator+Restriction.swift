/// Interface-type restrictions in the evaluation (NWPathMonitor's required and prohibited interface types): the
/// kernel is asked for the route out of each allowed interface, as `ip route get … oif IF` asks it.
extension TargetEvaluator {
    /// `target` reached only through the interface types `restriction` allows: the host's own route when its path
    /// is allowed (``InterfaceRestriction/allows(_:)-(ReachabilityPath)``: through a VPN, the link under it too);
    /// else the first allowed interface (by index) that a route carries the target out of; else, when only a
    /// prohibited interface carries it, not reachable for that reason.
    func evaluate(
        _ target: ReachabilityTarget, restrictedTo restriction: InterfaceRestriction
    ) throws(ReachabilityError) -> ReachabilitySnapshot {
        let restricted = ReachabilityTarget.restricted(target, restriction)
        let usual = try evaluate(target)
        if usual.path.interface == nil || restriction.allows(usual.path) || !usual.flags.contains(.reachable) {
            return ReachabilitySnapshot(target: restricted, flags: usual.flags, path: usual.path)
        }
        var best: ReachabilitySnapshot?
        for link in try links.allLinks() where link.isUp && restriction.allows(interface(for: link).type) {
            let pinned = try evaluate(target, outOf: link.index)
            guard pinned.path.interface?.index == link.index, restriction.allows(pinned.path),
                Self.rank(pinned.flags) > Self.rank(best?.flags ?? [])
            else {
                continue
            }
            best = pinned
            if pinned.status.isReachable { break }
        }
        guard let best else { return Self.unreachable(restricted, .prohibitedInterfaceType) }
        return ReachabilitySnapshot(target: restricted, flags: best.flags, path: best.path)
    }

    /// `target` as a packet leaving through the interface with `index` would reach it: every lookup pinned there.
    private func evaluate(_ target: ReachabilityTarget, outOf index: Int) throws(ReachabilityError) -> ReachabilitySnapshot {
        switch target {
        case .internet:
            let ipv4 = try snapshot(
                .internet, family: .ipv4, queries.lookupRoute(to: Self.internetProbeIPv4, from: nil, outOf: index))
            let ipv6 = try snapshot(
                .internet, family: .ipv6, queries.lookupRoute(to: Self.internetProbeIPv6, from: nil, outOf: index))
            return Self.internet(ipv4: ipv4, ipv6: ipv6).snapshot
        case .linkLocal:
            return try evaluateLinkLocal(onlyInterface: index)
        case .address(let address):
            guard let zone = try resolveZone(of: address), zone == nil || zone == index else {
                return Self.unreachable(target, .noRoute)
            }
            return try evaluate(address, answer: queries.lookupRoute(to: address.withoutZone, from: nil, outOf: index))
        case .addressPair(let local, let remote):
            let answer = try queries.lookupRoute(to: remote.withoutZone, from: local.withoutZone, outOf: index)
            return try snapshot(target, family: remote.family, answer)
        case .host(let name):
            let resolution = hosts.resolution(of: name, timeout: resolutionTimeout, refresh: refreshesHosts)
            return try evaluateHost(name, resolution) { (address) throws(ReachabilityError) in
                try self.evaluate(.address(address), outOf: index)
            }
        case .restricted(let inner, _):
            return try evaluate(inner, outOf: index)
        }
    }
}
