/// Turns the kernel's answers for a target into flags and a path, as `SEMANTICS.md` says: the rules, for every way
/// a target is evaluated (a read, a monitor pass, shared lookups, NAT64, the simulated network).
///
/// An evaluator serves one read or one monitor pass, on one thread, against one view of the links. What it asks once
/// for all the targets it evaluates, the internet's routes and what they make of NAT64, holds for that long: a pass
/// over 10,000 unrouted IPv4 addresses asks them once, not 10,000 times.
package final class TargetEvaluator {
    /// Global destinations whose routes stand for "the internet": no packet is sent, only the FIB is asked.
    /// A route that carries them is a default, a split default or a VPN's wider route; a route that only
    /// covers a private or link-local prefix never matches them.
    package static let internetProbeIPv4 = try! IPAddress("8.8.8.8")
    package static let internetProbeIPv6 = try! IPAddress("2001:4860:4860::8888")
    /// Both, as a dependency lists them: one array every unrouted IPv4 target shares.
    static let internetProbes = [internetProbeIPv4, internetProbeIPv6]

    let queries: any RouteQuerying
    let links: any LinkSource
    let classifier: any InterfaceClassifying
    /// What services say links are where the classifier cannot tell, as they said it when this evaluator was made.
    private let serviceLinkTypes: ServiceLinkTypes.Said
    /// NAT64 prefixes, advertised DNS servers and portal.
    let provisioning: ProvisioningDirectory
    let hosts: HostDirectory
    let resolutionTimeout: Duration
    /// Whether a host's resolution is asked afresh (a read) or taken as the monitor keeps it.
    let refreshesHosts: Bool
    /// The internet probes' answers, each once asked.
    private var internetIPv4: RouteAnswer?
    private var internetIPv6: RouteAnswer?
    /// The table entries the internet probes match, when the internet target asked them with its probes.
    private var internetEntries: (ipv4: RouteAnswer, ipv6: RouteAnswer)?
    /// Whether the internet's evaluation asks the probes' table entries, which name every gateway of a multipath
    /// route. They cost about 30 µs of CPU per change of the internet (`scripts/bench-latency`, route scenario: 176
    /// against 145 µs per change), so a monitor pass asks them only while the route may be multipath; a read always.
    package var asksInternetEntries = true
    /// Whether the resolver's configuration names a server, as a subscription keeps it (read again when the
    /// configuration changes); `nil`: ask `readNameServersConfigured` now. A read of Linux's file on every change of
    /// the internet cost about 6 µs, most of the path walk inside `ip netns exec`'s mounts (`perf`, `reach watch`
    /// through 600 route changes).
    package var nameServersConfigured: Bool?
    /// Reads whether the platform's resolver configuration names a server (Linux: `/etc/resolv.conf`).
    private let readNameServersConfigured: () -> Bool
    /// Whether the internet evaluated had several gateways; `nil` when this evaluator did not evaluate it.
    package private(set) var internetIsMultipath: Bool?
    /// How unrouted IPv4 addresses are carried, once worked out (``nat64Plan()``).
    var knownNAT64Plan: NAT64Plan?
    /// The links under the host's tunnels, per family of the internet they carry, each once asked (``underlying(_:)``).
    private var underlyingByFamily: [IPAddress.Family: [UnderlyingLink]] = [:]
    /// The last route path described, and its description (``snapshot(_:family:_:)``).
    private var lastDescription: (family: IPAddress.Family, route: RoutePath, flags: ReachabilityFlags, path: ReachabilityPath)?

    package init(
        queries: any RouteQuerying, links: any LinkSource, classifier: any InterfaceClassifying,
        serviceLinkTypes: ServiceLinkTypes, provisioning: ProvisioningDirectory, hosts: HostDirectory,
        resolutionTimeout: Duration, refreshesHosts: Bool,
        nameServersConfigured: @escaping () -> Bool
    ) {
        readNameServersConfigured = nameServersConfigured
        self.queries = queries
        self.links = links
        self.classifier = classifier
        self.serviceLinkTypes = serviceLinkTypes.current
        self.provisioning = provisioning
        self.hosts = hosts
        self.resolutionTimeout = resolutionTimeout
        self.refreshesHosts = refreshesHosts
    }

    /// The interface `link` is: the classifier's answer, or a service's where the classifier cannot tell
    /// (``ServiceLinkTypes``). Every path, interface list and restriction asks here.
    func interface(for link: Link) -> NetworkInterface {
        ServiceLinkTypes.describe(classifier.interface(for: link), by: serviceLinkTypes)
    }

    // MARK: - Targets

    /// Evaluates `target` now.
    package func evaluate(_ target: ReachabilityTarget) throws(ReachabilityError) -> ReachabilitySnapshot {
        switch target {
        case .internet:
            return try evaluateInternet()
        case .linkLocal:
            return try evaluateLinkLocal()
        case .address(let address):
            guard let zoneIndex = try resolveZone(of: address) else { return Self.unreachable(target, .linkDown) }
            let answer = try queries.lookupRoute(to: address, from: nil, interfaceIndex: zoneIndex)
            return try pinned(to: zoneIndex, evaluate(address, answer: answer))
        case .addressPair(let local, let remote):
            guard let localZone = try resolveZone(of: local), let remoteZone = try resolveZone(of: remote) else {
                return Self.unreachable(target, .linkDown)
            }
            let answer = try queries.lookupRoute(to: remote, from: local.withoutZone, interfaceIndex: localZone ?? remoteZone)
            return try pinned(to: localZone ?? remoteZone, snapshot(target, family: remote.family, answer))
        case .host(let name):
            return try evaluateHost(name, hosts.resolution(of: name, timeout: resolutionTimeout, refresh: refreshesHosts))
        case .restricted(let inner, let restriction):
            return try evaluate(inner, restrictedTo: restriction)
        }
    }

    /// An address target from the kernel's answer for it; an IPv4 address no route carries is tried through NAT64.
    package func evaluate(_ address: IPAddress, answer: RouteAnswer) throws(ReachabilityError) -> ReachabilitySnapshot {
        let direct = try snapshot(.address(address), family: address.family, answer)
        guard address.family == .ipv4, direct.flags.isEmpty else { return direct }
        return try evaluateThroughNAT64(address) ?? direct
    }

    /// `target`'s evaluation by `evaluate`, with what its answer rests on.
    package static func evaluation(
        of target: ReachabilityTarget, _ evaluate: () throws(ReachabilityError) -> ReachabilitySnapshot
    ) -> TargetEvaluation {
        do {
            let snapshot = try evaluate()
            return TargetEvaluation(result: .success(snapshot), dependency: dependency(of: target, snapshot))
        } catch {
            return TargetEvaluation(result: .failure(error), dependency: .always)
        }
    }

    /// What a target's answer rests on (``TargetDependency``). A zone names an interface by name or index, which a
    /// re-created link changes, so a zoned target rests on everything.
    static func dependency(of target: ReachabilityTarget, _ snapshot: ReachabilitySnapshot) -> TargetDependency {
        guard !snapshot.path.awaitsNAT64Discovery else { return .always }
        var destinations: [IPAddress] = []
        switch target {
        case .address(let address):
            guard address.zone == nil else { return .always }
            if address.family == .ipv4, snapshot.flags.isEmpty || snapshot.path.synthesizedAddress != nil {
                // NAT64 carries it, or may: the internet's routes and the synthesized address decide it too.
                destinations = internetProbes
                if let synthesized = snapshot.path.synthesizedAddress { destinations.append(synthesized) }
            }
        case .addressPair(let local, let remote):
            guard local.zone == nil, remote.zone == nil else { return .always }
        case .internet, .linkLocal, .host, .restricted:
            return .always
        }
        return TargetDependency(
            destinations: destinations, interfaceIndex: snapshot.path.interface?.index,
            underlyingInterfaceIndex: snapshot.path.underlying.first?.interface.index,
            sourceAddress: snapshot.path.sourceAddress)
    }

    /// Checks what can be checked before listening: zones name interfaces; a pair's local address is ours.
    package func validate(_ target: ReachabilityTarget) throws(ReachabilityError) {
        switch target {
        case .internet, .linkLocal, .host: return
        case .restricted(let inner, _): try validate(inner)
        case .address(let address):
            guard try resolveZone(of: address) != nil else { throw .unknownZone(address.zone ?? "") }
        case .addressPair(let local, let remote):
            guard local.family == remote.family else { throw .familyMismatch(local: local, remote: remote) }
            guard let localZone = try resolveZone(of: local) else { throw .unknownZone(local.zone ?? "") }
            guard try resolveZone(of: remote) != nil else { throw .unknownZone(remote.zone ?? "") }
            // The kernel calls an address its own when its lookup yields a `local` route (as bind() does).
            let answer = try queries.lookupRoute(to: local.withoutZone, from: nil, interfaceIndex: localZone)
            guard case .route(let route) = answer, route.type == .local else { throw .localAddressNotOwned(local) }
        }
    }

    // MARK: - Evaluation

    private func evaluateInternet() throws(ReachabilityError) -> ReachabilitySnapshot {
        if internetIPv4 == nil && internetIPv6 == nil && asksInternetEntries {
            // The entries (for a multipath route's every gateway) go in the same round trip as the probes.
            let (probe4, probe6) = (Self.internetProbeIPv4, Self.internetProbeIPv6)
            let answers = try queries.lookupRoutes([
                .path(to: probe4), .path(to: probe6), .entry(matching: probe4), .entry(matching: probe6),
            ])
            guard answers.count == 4 else { throw .malformedKernelReply("internet probe answers") }
            (internetIPv4, internetIPv6) = (answers[0], answers[1])
            internetEntries = (answers[2], answers[3])
        }
        let (ipv4, ipv6) = try internetByFamily()
        var (chosen, prefersIPv6) = Self.internet(ipv4: ipv4, ipv6: ipv6)
        let provisions = provisions(ipv4IsReachable: ipv4.status.isReachable, ipv6: ipv6)
        chosen.path.nat64Prefixes = provisions.nat64Prefixes
        chosen.path.advertisedDNSServers = provisions.dnsServers
        chosen.path.captivePortal = provisions.captivePortal
        chosen.path.supportsDNS =
            !provisions.dnsServers.isEmpty
            || (nameServersConfigured ?? readNameServersConfigured())
        if chosen.path.gateway != nil {
            let probe = prefersIPv6 ? Self.internetProbeIPv6 : Self.internetProbeIPv4
            var entry: RouteAnswer?
            if let internetEntries {
                entry = prefersIPv6 ? internetEntries.ipv6 : internetEntries.ipv4
            } else if asksInternetEntries {
                entry = try queries.matchedRoute(to: probe)
            }
            if case .route(let entry)? = entry, !entry.multipathGateways.isEmpty {
                chosen.path.gateways = entry.multipathGateways
            }
        }
        internetIsMultipath = chosen.path.gateways.count > 1
        chosen.path.availableInterfaces = try availableInterfaces(first: chosen.path.interface)
        return chosen
    }

    /// The internet from each family's answer: the preferred family's path (the more usable one; on a tie IPv4, the
    /// family of Apple's 0.0.0.0 token), marked with what each family supports.
    static func internet(
        ipv4: ReachabilitySnapshot, ipv6: ReachabilitySnapshot
    ) -> (snapshot: ReachabilitySnapshot, prefersIPv6: Bool) {
        let prefersIPv6 = rank(ipv6.flags) > rank(ipv4.flags)
        var chosen = prefersIPv6 ? ipv6 : ipv4
        chosen.path.supportsIPv4 = ipv4.status.isReachable
        chosen.path.supportsIPv6 = ipv6.status.isReachable
        chosen.path.isInternet = true
        return (chosen, prefersIPv6)
    }

    /// `first`, then every other interface that could carry traffic now (up, with carrier, not loopback), in index
    /// order: the internet path's ``ReachabilityPath/availableInterfaces``.
    private func availableInterfaces(first: NetworkInterface?) throws(ReachabilityError) -> [NetworkInterface] {
        let others = try links.allLinks().sorted { $0.index < $1.index }.filter { link in
            link.isReadyToCarry && !link.isLoopback && link.index != first?.index
        }
        return (first.map { [$0] } ?? []) + others.map(interface(for:))
    }

    /// Takes the IPv4 internet probe's answer a read asked along with its own lookup, in the same round trip.
    package func useInternetAnswer(ipv4: RouteAnswer) { internetIPv4 = ipv4 }

    /// The internet as each family sees it, from the probes' answers: both asked in one send, once per evaluator.
    func internetByFamily() throws(ReachabilityError) -> (ipv4: ReachabilitySnapshot, ipv6: ReachabilitySnapshot) {
        (try internet(.ipv4), try internet(.ipv6))
    }

    /// The internet as `family` sees it: the probe's answer, asked once per evaluator, with the other family's
    /// when neither is known yet (the internet target wants both).
    func internet(_ family: IPAddress.Family) throws(ReachabilityError) -> ReachabilitySnapshot {
        if internetIPv4 == nil && internetIPv6 == nil {
            let answers = try queries.lookupRoutes(to: [Self.internetProbeIPv4, Self.internetProbeIPv6])
            guard answers.count == 2 else { throw .malformedKernelReply("internet probe answers") }
            (internetIPv4, internetIPv6) = (answers[0], answers[1])
        }
        let probe = family == .ipv4 ? Self.internetProbeIPv4 : Self.internetProbeIPv6
        let known = family == .ipv4 ? internetIPv4 : internetIPv6
        let answer: RouteAnswer
        if let known { answer = known } else { answer = try queries.lookupRoute(to: probe, from: nil, interfaceIndex: nil) }
        if family == .ipv4 { internetIPv4 = answer } else { internetIPv6 = answer }
        return try snapshot(.internet, family: family, answer)
    }

    /// What the network provisions on the IPv6 route's interface; on an IPv6-only network this is also what
    /// starts DNS64 discovery.
    func provisions(ipv4IsReachable: Bool, ipv6: ReachabilitySnapshot) -> ProvisioningDirectory.Provisions {
        let isIPv6Only = ipv6.status.isReachable && !ipv4IsReachable
        let network = ProvisioningDirectory.Network(interfaceIndex: ipv6.path.interface?.index, gateway: ipv6.path.gateway)
        return provisioning.provisions(onInterface: ipv6.path.interface?.index, ipv6OnlyNetwork: isIPv6Only ? network : nil)
    }

    /// Each resolved address is evaluated as an address target; the path is the first reachable one's, in
    /// `getaddrinfo`'s (RFC 6724) order, else the first's. Pending, failed or empty resolutions give no flags.
    func evaluateHost(
        _ name: HostName, _ resolution: HostResolution,
        addressesBy evaluateAddress: ((IPAddress) throws(ReachabilityError) -> ReachabilitySnapshot)? = nil
    ) throws(ReachabilityError) -> ReachabilitySnapshot {
        guard resolution.state == .resolved, !resolution.addresses.isEmpty else {
            let reason: UnsatisfiedReason =
                switch resolution.state {
                case .pending: .resolutionPending
                case .timedOut: .resolutionTimedOut
                case .failed, .resolved: .resolutionFailed
                }
            return ReachabilitySnapshot(target: .host(name), flags: [], path: ReachabilityPath(host: resolution, reason: reason))
        }
        var evaluated: [(address: IPAddress, snapshot: ReachabilitySnapshot)] = []
        for address in resolution.addresses {
            if let evaluateAddress {
                evaluated.append((address, try evaluateAddress(address)))
            } else {
                evaluated.append((address, try evaluate(.address(address))))
            }
        }
        // The most usable address by the internet's rule; on a tie the first, in getaddrinfo's (RFC 6724) order.
        let best = evaluated.map { Self.rank($0.snapshot.flags) }.max() ?? 0
        guard let chosen = evaluated.first(where: { Self.rank($0.snapshot.flags) == best }) else {
            return ReachabilitySnapshot(
                target: .host(name), flags: [], path: ReachabilityPath(host: resolution, reason: .resolutionFailed))
        }
        var path = chosen.snapshot.path
        path.supportsIPv4 = evaluated.contains { $0.address.family == .ipv4 && $0.snapshot.status.isReachable }
        path.supportsIPv6 = evaluated.contains { $0.address.family == .ipv6 && $0.snapshot.status.isReachable }
        path.host = resolution
        path.host?.chosenAddress = chosen.address
        return ReachabilitySnapshot(target: .host(name), flags: chosen.snapshot.flags, path: path)
    }

    /// The link-local network, through the interface with `onlyInterface` alone when given.
    func evaluateLinkLocal(onlyInterface: Int? = nil) throws(ReachabilityError) -> ReachabilitySnapshot {
        let linksByIndex = Dictionary(try links.allLinks().map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        let candidates = try queries.addresses().filter { address in
            guard address.address.isLinkLocal, address.isUsable, let link = linksByIndex[address.interfaceIndex],
                onlyInterface == nil || onlyInterface == link.index
            else {
                return false
            }
            return !link.isLoopback && link.isReadyToCarry
        }
        guard let first = candidates.first, let link = linksByIndex[first.interfaceIndex] else {
            return Self.unreachable(.linkLocal, .noLinkLocalAddress)
        }
        let interface = self.interface(for: link)
        // On the link itself: as an on-link route through it would be.
        let onLink = RoutePath(type: .unicast, gateway: nil, outputInterface: link.index, preferredSource: first.address)
        let path = ReachabilityPath(
            interface: interface, sourceAddress: first.address,
            supportsIPv4: candidates.contains { $0.address.family == .ipv4 },
            supportsIPv6: candidates.contains { $0.address.family == .ipv6 })
        return ReachabilitySnapshot(
            target: .linkLocal, flags: Self.flags(route: onLink, link: link, interfaceType: interface.type), path: path)
    }

    /// Every interface with its state and addresses, in index order, marking those the internet's routes leave
    /// through.
    package func interfaces() throws(ReachabilityError) -> [InterfaceStatus] {
        let (ipv4, ipv6) = try internetByFamily()
        let internet = Set([ipv4, ipv6].filter(\.status.isReachable).compactMap { $0.path.interface?.index })
        let addresses = Dictionary(grouping: try queries.addresses(), by: \.interfaceIndex)
        return try links.allLinks().sorted { $0.index < $1.index }.map { link in
            InterfaceStatus(
                interface: interface(for: link), isUp: link.isUp, hasCarrier: link.hasCarrier,
                operationalState: link.operationalStateName,
                addresses: (addresses[link.index] ?? []).map { "\($0.address)/\($0.prefixLength)" },
                carriesInternet: internet.contains(link.index))
        }
    }

    /// `target`'s snapshot from a route lookup's answer for a destination of `family`: the one place a route is
    /// described. It reads nothing of the answer but its ``RoutePath``, so answers with equal paths are described
    /// alike, which lets a pass answer many targets with one lookup; and a path described last is not described
    /// again, so that the targets behind one route share one path (10,000 listening targets keep about 300 bytes
    /// less each, `Benchmarks/`, resident bytes per target).
    func snapshot(
        _ target: ReachabilityTarget, family: IPAddress.Family, _ answer: RouteAnswer
    ) throws(ReachabilityError) -> ReachabilitySnapshot {
        guard case .route(let route) = answer, route.type.carriesPackets else {
            return Self.unreachable(target, Self.reason(refusedBy: answer))
        }
        let routePath = route.path
        if let last = lastDescription, last.family == family, last.route == routePath {
            return ReachabilitySnapshot(target: target, flags: last.flags, path: last.path)
        }
        let link = try routePath.outputInterface.flatMap { (index) throws(ReachabilityError) in try links.link(index: index) }
        let interface = link.map(self.interface(for:))
        let flags = Self.flags(route: routePath, link: link, interfaceType: interface?.type)
        let isReachable = NetworkReachabilityStatus(flags).isReachable
        let path = ReachabilityPath(
            interface: interface, gateway: routePath.gateway, sourceAddress: routePath.preferredSource,
            supportsIPv4: family == .ipv4 && isReachable, supportsIPv6: family == .ipv6 && isReachable,
            reason: isReachable ? nil : link.flatMap(Self.reason(notCarrying:)),
            underlying: interface?.isVPN == true ? try underlying(family) : [])
        lastDescription = (family, routePath, flags, path)
        return ReachabilitySnapshot(target: target, flags: flags, path: path)
    }

    /// The links under a VPN's tunnel that carry `family`'s internet (the other family's where this one has none:
    /// an IPv6 tunnel may ride on IPv4), asked once per evaluator: the same for every target through a tunnel, as
    /// the tunnel's endpoint is not known here.
    private func underlying(_ family: IPAddress.Family) throws(ReachabilityError) -> [UnderlyingLink] {
        if let known = underlyingByFamily[family] { return known }
        var found: [UnderlyingLink] = []
        for probe in family == .ipv4 ? Self.internetProbes : Self.internetProbes.reversed() where found.isEmpty {
            found = try underlying(toward: probe)
        }
        underlyingByFamily[family] = found
        return found
    }

    /// What carries a tunnel's packets toward `probe` (SEMANTICS.md, "The link under a VPN"): the first route marked
    /// packets take that leaves through no tunnel; else the main table's defaults a tunnel's narrower routes shadow,
    /// those of the lowest metric (every leg of a multipath one), unless a tunnel has a default of its own at that
    /// metric or better, which makes the others its backups, not what carries it.
    private func underlying(toward probe: IPAddress) throws(ReachabilityError) -> [UnderlyingLink] {
        for route in try queries.markedRoutes(to: probe) where route.type == .unicast {
            if let link = try underlyingLink(route) { return [link] }
        }
        let candidates = try links.allLinks().filter { $0.isUp && !$0.isLoopback }.sorted { $0.index < $1.index }
        let defaults = try queries.defaultRoutes(to: probe, outOf: candidates.map(\.index))
        var beside: [(link: UnderlyingLink, metric: UInt32)] = []
        var tunnelMetric: UInt32?
        for entry in defaults {
            if let link = try underlyingLink(entry.route) {
                beside.append((link, entry.metric))
            } else {
                tunnelMetric = min(tunnelMetric ?? .max, entry.metric)
            }
        }
        guard let best = beside.map(\.metric).min(), (tunnelMetric ?? .max) > best else { return [] }
        return beside.filter { $0.metric == best }.map(\.link)
    }

    /// `route`'s interface as the link under a tunnel; `nil` when it is a tunnel itself, loopback or unknown.
    private func underlyingLink(_ route: Route) throws(ReachabilityError) -> UnderlyingLink? {
        guard let index = route.outputInterface, let link = try links.link(index: index), !link.isLoopback else { return nil }
        let interface = interface(for: link)
        return interface.isVPN ? nil : UnderlyingLink(interface: interface, gateway: route.gateway)
    }

    /// `snapshot` of a target that names its interface (`index`, from a zone or a local address): a lookup pinned to
    /// a downed interface finds no route, and the reason is the interface, not the routes.
    private func pinned(to index: Int?, _ snapshot: ReachabilitySnapshot) throws(ReachabilityError) -> ReachabilitySnapshot {
        guard let index, snapshot.path.reason == .noRoute, let link = try links.link(index: index), !link.isUp else {
            return snapshot
        }
        return Self.unreachable(snapshot.target, .linkDown)
    }

    /// The zone's interface index: `.some(nil)` without a zone, `nil` when the zone names no interface.
    func resolveZone(of address: IPAddress) throws(ReachabilityError) -> Int?? {
        guard let zone = address.zone else { return .some(nil) }
        if let index = Int(zone), index > 0, index <= Int(Int32.max) {
            return try links.link(index: index) == nil ? nil : .some(index)
        }
        return try queries.linkIndex(named: zone).map { .some($0) } ?? nil
    }

    // MARK: - Pure rules

    /// The flags of a destination the kernel routes by `route`, out of `link` (SEMANTICS.md, "Flags"): the one
    /// place a flag is set.
    static func flags(route: RoutePath, link: Link?, interfaceType: NetworkInterface.InterfaceType?)
        -> ReachabilityFlags
    {
        guard route.type.carriesPackets else { return [] }
        var flags: ReachabilityFlags
        if route.type == .local {
            flags = [.reachable, .isLocalAddress, .isDirect]
        } else {
            flags = route.gateway == nil ? [.reachable, .isDirect] : [.reachable]
        }
        if let link {
            if link.isPointToPoint { flags.insert(.transientConnection) }
            if !link.isReadyToCarry {
                flags.insert(.connectionRequired)
                if link.isDormant { flags.insert(.interventionRequired) }
            }
        }
        if interfaceType == .cellular { flags.insert(.isWWAN) }
        return flags
    }

    /// Why a lookup's answer carries nothing (SEMANTICS.md, "Reasons"): the refusing route's type, or the errno the
    /// kernel ends such a lookup with; anything else is no route.
    static func reason(refusedBy answer: RouteAnswer) -> UnsatisfiedReason {
        switch answer {
        case .route(let route):
            switch route.type {
            case .unreachable: .unreachableRoute
            case .prohibit: .prohibitRoute
            case .blackhole: .blackholeRoute
            default: .noRoute
            }
        case .noRoute(let refusal):
            switch refusal {
            case .unreachable: .unreachableRoute
            case .prohibited: .prohibitRoute
            case .blackhole: .blackholeRoute
            case .nothingMatched, .other: .noRoute
            }
        }
    }

    /// Why a route's link does not carry packets now, the reason behind `connectionRequired`; `nil` when it does.
    static func reason(notCarrying link: Link) -> UnsatisfiedReason? {
        guard !link.isReadyToCarry else { return nil }
        if !link.isUp { return .linkDown }
        return link.isDormant ? .dormant : .noCarrier
    }

    /// How usable flags are: reachable, reachable once a connection is made, or neither.
    static func rank(_ flags: ReachabilityFlags) -> Int {
        NetworkReachabilityStatus(flags).isReachable ? 2 : flags.contains(.reachable) ? 1 : 0
    }

    /// A snapshot with no flags, for `reason`.
    static func unreachable(_ target: ReachabilityTarget, _ reason: UnsatisfiedReason) -> ReachabilitySnapshot {
        ReachabilitySnapshot(target: target, flags: [], path: unreachablePaths[reason.ordinal])
    }

    /// One path per reason, which every unreachable target shares: 10,000 targets behind a removed default route
    /// keep one path between them, not one each (`Benchmarks/`, resident bytes per target). Found by position, as a
    /// pass asks once per target.
    private static let unreachablePaths = UnsatisfiedReason.allCases.map { ReachabilityPath(reason: $0) }
}
