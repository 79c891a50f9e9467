/// Turns the kernel's answers for one target into flags and a path, as `SEMANTICS.md` says.
struct TargetEvaluator {
    /// Global destinations whose routes stand for "the internet": no packet is sent, only the FIB is asked.
    /// A route that carries them is a default, a split default or a VPN's wider route; a route that only
    /// covers a private or link-local prefix never matches them.
    static let internetProbeIPv4 = try! IPAddress("8.8.8.8")
    static let internetProbeIPv6 = try! IPAddress("2001:4860:4860::8888")
    /// Both probes: what a dependency that ``TargetDependency/followsInternet`` rests on too.
    static let internetProbes = [internetProbeIPv4, internetProbeIPv6]

    let queries: any RouteQuerying
    let links: any LinkSource
    let classifier: any InterfaceClassifying
    /// The latest resolution of a host name (the monitor's view, or a synchronous read's).
    let hostResolution: HostLookup
    /// NAT64 prefixes, advertised DNS servers and portal.
    let provisioning: ProvisioningDirectory
    /// What the monitor's current pass has asked once for all its targets (``PassMemo``), so 10,000 targets ask
    /// it once, not once each; `nil` on the synchronous path.
    var passMemo: PassMemo? = nil
    /// On the synchronous path: whether to ask the internet probes along with an IPv4 address's lookup.
    var unroutedHint: UnroutedReadHint? = nil
    /// The monitor's: the prefixes of the IPv4 routes that refuse packets or pass them on, in the tables the
    /// default policy looks up (``RefusingRoutes``); without it, targets that matched no route are asked one by one.
    var refusingRoutes: (() throws(ReachabilityError) -> [NetworkChanges.Prefix])? = nil

    /// Where and how host names are looked up: a value, where a closure would cost every read an allocation.
    struct HostLookup {
        let hosts: HostDirectory
        /// How long a resolution may take before it counts as timed out.
        let timeout: Duration
        /// Whether asking starts a fresh resolution (a synchronous read) or takes the latest (the monitor).
        let refresh: Bool

        func callAsFunction(_ name: HostName) -> HostResolution {
            hosts.resolution(of: name, timeout: timeout, refresh: refresh)
        }
    }

    // MARK: - Targets

    /// Evaluates `target` now.
    func evaluate(_ target: ReachabilityTarget) throws(ReachabilityError) -> ReachabilitySnapshot {
        switch target {
        case .internet:
            return try evaluateInternet()
        case .linkLocal:
            return try evaluateLinkLocal()
        case .address(let address):
            guard let zoneIndex = try resolveZone(of: address) else { return Self.unreachable(target) }
            if zoneIndex == nil, address.family == .ipv4, let unroutedHint { return try read(address, unroutedHint) }
            return try evaluate(address, answer: lookup(address, interfaceIndex: zoneIndex))
        case .addressPair(let local, let remote):
            guard let localZone = try resolveZone(of: local), let remoteZone = try resolveZone(of: remote) else {
                return Self.unreachable(target)
            }
            let answer = try lookup(remote, from: local.withoutZone, interfaceIndex: localZone ?? remoteZone)
            return try snapshot(target, family: remote.family, answer)
        case .host(let name):
            return try evaluateHost(name, hostResolution(name))
        }
    }

    /// `target`'s flags: those ``evaluate(_:)`` gives, but the path of an address with a route is not described
    /// (interface name, gateway, source), which is most of a read's work beside the kernel's answer.
    func flags(of target: ReachabilityTarget) throws(ReachabilityError) -> ReachabilityFlags {
        guard case .address(let address) = target, address.zone == nil else { return try evaluate(target).flags }
        var along = ProbesAlong()
        let direct = try flags(of: readAnswer(address, along: &along))
        guard address.family == .ipv4 else { return direct }
        unroutedHint?.record(unrouted: direct.isEmpty)
        guard direct.isEmpty else { return direct }
        return try evaluateThroughNAT64(address, along: along)?.flags ?? direct
    }

    /// Evaluates targets in order, each with what its answer rests on. Address targets without a zone share
    /// batched route lookups, ``batchSize`` per `send`; the others, and a batch the kernel could not
    /// answer, are evaluated one by one. The members of each of `groups` are answered by one lookup where that
    /// is exact (``evaluateShared(_:of:into:lastRouted:)``).
    func evaluate(_ targets: [ReachabilityTarget], sharing groups: [SharedRouteGroup] = []) -> [TargetEvaluation] {
        var evaluations: [TargetEvaluation?] = .emptyPlaces(targets.count)
        // Targets behind one route mostly get the same route back: they share the last one's flags and path, so
        // 10,000 of them are described once, keep one path, not 10,000 copies, and compare equal at once.
        var lastRouted: RoutedOutcome?
        if !groups.isEmpty { evaluateShared(groups, of: targets, into: &evaluations, lastRouted: &lastRouted) }
        var batchable: [(position: Int, address: IPAddress)] = []
        for position in targets.indices where evaluations[position] == nil {
            if case .address(let address) = targets[position], address.zone == nil { batchable.append((position, address)) }
        }
        for start in stride(from: 0, to: batchable.count, by: Self.batchSize) {
            let chunk = batchable[start..<min(start + Self.batchSize, batchable.count)]
            guard let answers = try? answersWithEntries(for: chunk.map(\.address)) else { continue }
            for ((position, address), (answer, match)) in zip(chunk, answers) {
                evaluations[position] = describe(address, answer, match: match, lastRouted: &lastRouted)
            }
        }
        // Each evaluation moved out, not copied: a copy retained and released every path and destination list.
        var evaluated: [TargetEvaluation] = []
        evaluated.reserveCapacity(targets.count)
        for position in targets.indices {
            if let evaluation = evaluations[position].take() {
                evaluated.append(evaluation)
            } else {
                let target = targets[position]
                evaluated.append(Self.evaluation(of: target, match: nil) { () throws(ReachabilityError) in try evaluate(target) })
            }
        }
        return evaluated
    }

    /// An address target's evaluation from the kernel's answer for it, described like `lastRouted` when it got
    /// the same route back, which it becomes otherwise.
    func describe(
        _ address: IPAddress, _ answer: RouteAnswer, match: RouteMatch?, lastRouted: inout RoutedOutcome?
    ) -> TargetEvaluation {
        Self.evaluation(of: .address(address), match: match) { () throws(ReachabilityError) in
            if let shared = lastRouted?.snapshot(of: address, answer) { return shared }
            let snapshot = try evaluate(address, answer: answer)
            lastRouted = RoutedOutcome(answer, of: address, snapshot) ?? lastRouted
            return snapshot
        }
    }

    /// Route lookups per `send`: the replies of one batch must fit the request socket's receive buffer
    /// (the kernel drops what does not fit), and each trimmed reply takes well under 1 KiB of it.
    static let batchSize = 64

    private static func evaluation(
        of target: ReachabilityTarget, match: RouteMatch?, _ evaluate: () throws(ReachabilityError) -> ReachabilitySnapshot
    ) -> TargetEvaluation {
        do {
            let snapshot = try evaluate()
            var dependency = dependency(of: target, snapshot)
            if !dependency.always { dependency.match = match }
            return TargetEvaluation(result: .success(snapshot), dependency: dependency)
        } catch {
            return TargetEvaluation(result: .failure(error), dependency: .always)
        }
    }

    /// What a target's answer rests on: see ``TargetDependency``. This runs for every target of a pass: a single
    /// destination goes inline, without an allocation.
    static func dependency(of target: ReachabilityTarget, _ snapshot: ReachabilitySnapshot) -> TargetDependency {
        guard !snapshot.path.awaitsNAT64Discovery else { return .always }
        var destinations = InlineFirstArray<AddressKey>()
        var followsInternet = false
        // A zone names an interface by name or index, which a re-created link changes: no narrowing.
        switch target {
        case .address(let address):
            guard address.zone == nil else { return .always }
            destinations.append(address.key)
            if address.family == .ipv4, snapshot.flags.isEmpty || snapshot.path.synthesizedAddress != nil {
                // NAT64 carries it, or may: its answer also rests on the internet's routes and the synthesized
                // address.
                followsInternet = true
                if let synthesized = snapshot.path.synthesizedAddress { destinations.append(synthesized.key) }
            }
        case .addressPair(let local, let remote):
            guard local.zone == nil, remote.zone == nil else { return .always }
            destinations.append(remote.key)
            destinations.append(local.key)
        case .internet, .linkLocal, .host: return .always
        }
        return TargetDependency(
            destinations: destinations, followsInternet: followsInternet, interfaceIndex: snapshot.path.interface?.index,
            sourceAddress: snapshot.path.sourceAddress?.key)
    }

    /// Checks what can be checked before listening: zones name interfaces; a pair's local address is ours.
    func validate(_ target: ReachabilityTarget) throws(ReachabilityError) {
        switch target {
        case .internet, .linkLocal, .host: return
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
        let (ipv4, ipv6) = try internetByFamily()
        // The preferred family is the more usable one; on a tie IPv4, the family of Apple's 0.0.0.0 token.
        var chosen = Self.rank(ipv6.flags) > Self.rank(ipv4.flags) ? ipv6 : ipv4
        chosen.path.supportsIPv4 = ipv4.status.isReachable
        chosen.path.supportsIPv6 = ipv6.status.isReachable
        chosen.path.isInternet = true
        let provisions = provisions(ipv4IsReachable: ipv4.status.isReachable, ipv6: ipv6)
        chosen.path.nat64Prefixes = provisions.nat64Prefixes
        chosen.path.advertisedDNSServers = provisions.dnsServers
        chosen.path.captivePortal = provisions.captivePortal
        return chosen
    }

    private func internetByFamily() throws(ReachabilityError) -> (ipv4: ReachabilitySnapshot, ipv6: ReachabilitySnapshot) {
        let answers = try internetProbeAnswers()
        return (try snapshot(.internet, family: .ipv4, answers.ipv4), try snapshot(.internet, family: .ipv6, answers.ipv6))
    }

    /// The kernel's answers for the internet probes: the pass's memo, else asked now.
    func internetProbeAnswers() throws(ReachabilityError) -> (ipv4: RouteAnswer, ipv6: RouteAnswer) {
        // Both probes go out in one send: one round trip, once per monitor pass.
        let answers: ArraySlice<RouteAnswer>
        if let remembered = passMemo?.answers {
            answers = remembered[...]
        } else {
            let asked = try queries.lookupRoutes(to: [Self.internetProbeIPv4, Self.internetProbeIPv6])
            passMemo?.answers = asked
            answers = asked[...]
        }
        guard let ipv4 = answers.first, let ipv6 = answers.dropFirst().first else {
            throw .malformedKernelReply("internet probe answers")
        }
        return (ipv4, ipv6)
    }

    /// The flags `answer` gives its destination: the output link's kind is looked up, the link not described.
    private func flags(of answer: RouteAnswer) throws(ReachabilityError) -> ReachabilityFlags {
        guard case .route(let route) = answer, route.type.carriesPackets else { return [] }
        let link = try outputLink(of: route)
        return Self.flags(route: route, link: link, interfaceType: link.map(classifier.interfaceType(of:)))
    }

    /// The link `route` leaves through, if it names one that exists.
    func outputLink(of route: RouteMessage) throws(ReachabilityError) -> LinkMessage? {
        try route.outputInterface.flatMap { (index: Int) throws(ReachabilityError) in try links.link(index: index) }
    }

    /// What the network provisions on the IPv6 route's interface; on an IPv6-only network this is also what
    /// starts DNS64 discovery.
    func provisions(ipv4IsReachable: Bool, ipv6: ReachabilitySnapshot) -> ProvisioningDirectory.Provisions {
        let isIPv6Only = ipv6.status.isReachable && !ipv4IsReachable
        let network = ProvisioningDirectory.Network(interfaceIndex: ipv6.path.interface?.index, gateway: ipv6.path.gateway)
        return provisioning.provisions(onInterface: ipv6.path.interface?.index, ipv6OnlyNetwork: isIPv6Only ? network : nil)
    }

    /// A synchronous read of an IPv4 address without a zone: its lookup goes out with the internet probes when
    /// the last such read found no route (see ``UnroutedReadHint``).
    private func read(_ address: IPAddress, _ hint: UnroutedReadHint) throws(ReachabilityError) -> ReachabilitySnapshot {
        var along = ProbesAlong()
        let snapshot = try evaluate(address, answer: readAnswer(address, along: &along), along: along)
        hint.record(unrouted: snapshot.flags.isEmpty || snapshot.path.synthesizedAddress != nil)
        return snapshot
    }

    /// The kernel's answer for an address without a zone. For an IPv4 address whose last synchronous read found no
    /// route, what ``UnroutedReadHint`` says goes along (the internet probes, or the address a NAT64 plan that still
    /// holds synthesizes), and `along` gets what came back.
    private func readAnswer(_ address: IPAddress, along: inout ProbesAlong) throws(ReachabilityError) -> RouteAnswer {
        guard address.family == .ipv4, let unroutedHint, unroutedHint.expectsUnrouted else { return try lookup(address) }
        let mark = try queries.changeMark()
        if let known = unroutedHint.knownPlan(at: mark, provisioning: { provisioning.revision }) {
            // Nothing changed since NAT64's part was worked out: no probes; with a prefix, the synthesized address
            // goes along.
            guard case .synthesized(let prefix) = known else { return try lookup(address) }
            let synthesized = try prefix.synthesize(address)
            let answers = try queries.lookupRoutes(to: [address, synthesized])
            guard let answer = answers.first, let synthesizedAnswer = answers.dropFirst().first else {
                throw .malformedKernelReply("route lookup answer")
            }
            along = ProbesAlong(synthesized: (synthesized, synthesizedAnswer))
            return answer
        }
        let answers = try queries.lookupRoutes(
            to: unroutedHint.wasIPv4InternetUsable
                ? [address, Self.internetProbeIPv4] : [address, Self.internetProbeIPv4, Self.internetProbeIPv6])
        guard let answer = answers.first else { throw .malformedKernelReply("route lookup answer") }
        along = ProbesAlong(answers: answers.dropFirst(), mark: mark)
        return answer
    }

    /// An address target from the kernel's answer for it; an unrouted IPv4 address is tried through NAT64,
    /// with what a synchronous read asked `along`.
    private func evaluate(_ address: IPAddress, answer: RouteAnswer, along: ProbesAlong = ProbesAlong())
        throws(ReachabilityError) -> ReachabilitySnapshot
    {
        let direct = try snapshot(.address(address), family: address.family, answer)
        guard address.family == .ipv4, direct.flags.isEmpty else { return direct }
        return try evaluateThroughNAT64(address, along: along) ?? direct
    }

    /// Each resolved address is evaluated as an address target; the path is the first reachable one's, in
    /// `getaddrinfo`'s (RFC 6724) order, else the first's. Pending, failed or empty resolutions give no flags.
    private func evaluateHost(_ name: HostName, _ resolution: HostResolution) throws(ReachabilityError) -> ReachabilitySnapshot {
        guard resolution.state == .resolved, !resolution.addresses.isEmpty else {
            return ReachabilitySnapshot(target: .host(name), flags: [], path: ReachabilityPath(host: resolution))
        }
        var evaluated: [(address: IPAddress, snapshot: ReachabilitySnapshot)] = []
        for address in resolution.addresses {
            evaluated.append((address, try evaluate(.address(address))))
        }
        // The most usable address by the internet's rule; on a tie the first, in getaddrinfo's (RFC 6724) order.
        let best = evaluated.map { Self.rank($0.snapshot.flags) }.max() ?? 0
        guard let chosen = evaluated.first(where: { Self.rank($0.snapshot.flags) == best }) else {
            return ReachabilitySnapshot(target: .host(name), flags: [], path: ReachabilityPath(host: resolution))
        }
        var path = chosen.snapshot.path
        path.supportsIPv4 = evaluated.contains { $0.address.family == .ipv4 && $0.snapshot.status.isReachable }
        path.supportsIPv6 = evaluated.contains { $0.address.family == .ipv6 && $0.snapshot.status.isReachable }
        path.host = resolution
        path.host?.chosenAddress = chosen.address
        return ReachabilitySnapshot(target: .host(name), flags: chosen.snapshot.flags, path: path)
    }

    private func evaluateLinkLocal() throws(ReachabilityError) -> ReachabilitySnapshot {
        let linksByIndex = Dictionary(try links.allLinks().map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        let candidates = try queries.addresses().filter { address in
            guard address.address.isLinkLocal, address.isUsable, let link = linksByIndex[address.interfaceIndex] else {
                return false
            }
            return !link.isLoopback && link.isReadyToCarry
        }
        guard let first = candidates.first, let link = linksByIndex[first.interfaceIndex] else {
            return Self.unreachable(.linkLocal)
        }
        let interface = classifier.interface(for: link)
        var flags = Self.linkFlags(link: link, type: interface.type)
        flags.formUnion([.reachable, .isDirect])
        let path = ReachabilityPath(
            interface: interface, sourceAddress: first.address,
            supportsIPv4: candidates.contains { $0.address.family == .ipv4 },
            supportsIPv6: candidates.contains { $0.address.family == .ipv6 },
            isExpensive: interface.type == .cellular)
        return ReachabilitySnapshot(target: .linkLocal, flags: flags, path: path)
    }

    /// One route lookup.
    func lookup(
        _ destination: IPAddress, from source: IPAddress? = nil, interfaceIndex: Int? = nil
    ) throws(ReachabilityError) -> RouteAnswer {
        try queries.lookupRoute(to: destination, from: source, interfaceIndex: interfaceIndex)
    }

    func snapshot(
        _ target: ReachabilityTarget, family: IPAddress.Family, _ answer: RouteAnswer
    ) throws(ReachabilityError) -> ReachabilitySnapshot {
        guard case .route(let route) = answer, route.type.carriesPackets else {
            return Self.unreachable(target)
        }
        let link = try outputLink(of: route)
        let interface = link.map(classifier.interface(for:))
        let flags = Self.flags(route: route, link: link, interfaceType: interface?.type)
        let isReachable = NetworkReachabilityStatus(flags).isReachable
        let path = ReachabilityPath(
            interface: interface, gateway: route.gateway, sourceAddress: route.preferredSource,
            supportsIPv4: family == .ipv4 && isReachable, supportsIPv6: family == .ipv6 && isReachable,
            isExpensive: interface?.type == .cellular)
        return ReachabilitySnapshot(target: target, flags: flags, path: path)
    }

    /// The zone's interface index: `.some(nil)` without a zone, `nil` when the zone names no interface.
    private func resolveZone(of address: IPAddress) throws(ReachabilityError) -> Int?? {
        guard let zone = address.zone else { return .some(nil) }
        if let index = Int(zone), index > 0, index <= Int(Int32.max) {
            return try links.link(index: index) == nil ? nil : .some(index)
        }
        return try queries.linkIndex(named: zone).map { .some($0) } ?? nil
    }

    // MARK: - Pure rules

    /// The flags for a route the kernel returned, given its output link (SEMANTICS.md, "Flags").
    static func flags(route: RouteMessage, link: LinkMessage?, interfaceType: NetworkInterface.InterfaceType?)
        -> ReachabilityFlags
    {
        var flags: ReachabilityFlags
        guard route.type.carriesPackets else { return [] }
        if route.type == .local {
            flags = [.reachable, .isLocalAddress, .isDirect]
        } else {
            flags = route.gateway == nil ? [.reachable, .isDirect] : [.reachable]
        }
        if let link { flags.formUnion(linkFlags(link: link, type: interfaceType)) }
        return flags
    }

    /// The flags an output link adds: transient, connection required, intervention required, WWAN.
    static func linkFlags(link: LinkMessage, type: NetworkInterface.InterfaceType?) -> ReachabilityFlags {
        var flags: ReachabilityFlags = []
        if link.isPointToPoint { flags.insert(.transientConnection) }
        if !link.isReadyToCarry {
            flags.insert(.connectionRequired)
            if link.isDormant { flags.insert(.interventionRequired) }
        }
        if type == .cellular { flags.insert(.isWWAN) }
        return flags
    }

    /// A packet-carrying route's answer as it was described for one address: another address of the same family
    /// that gets the same route back in the same batch, against the same view of the links, is described alike.
    struct RoutedOutcome {
        let family: IPAddress.Family
        let route: RouteMessage
        let flags: ReachabilityFlags
        let path: ReachabilityPath

        /// `nil` unless `answer` is a packet-carrying route that described `address` directly (not via NAT64).
        init?(_ answer: RouteAnswer, of address: IPAddress, _ snapshot: ReachabilitySnapshot) {
            guard case .route(let route) = answer, route.type.carriesPackets, snapshot.path.synthesizedAddress == nil
            else { return nil }
            (family, self.route, flags, path) = (address.family, route, snapshot.flags, snapshot.path)
        }

        /// `address`'s snapshot when `answer` is the same route as far as the description goes (all it reads
        /// of a route is its type, gateway, source and output interface); else `nil`.
        func snapshot(of address: IPAddress, _ answer: RouteAnswer) -> ReachabilitySnapshot? {
            guard case .route(let other) = answer, address.family == family, other.type == route.type,
                other.outputInterface == route.outputInterface, other.gateway == route.gateway,
                other.preferredSource == route.preferredSource
            else { return nil }
            return ReachabilitySnapshot(target: .address(address), flags: flags, path: path)
        }
    }

    private static func rank(_ flags: ReachabilityFlags) -> Int {
        NetworkReachabilityStatus(flags).isReachable ? 2 : flags.contains(.reachable) ? 1 : 0
    }

    static func unreachable(_ target: ReachabilityTarget) -> ReachabilitySnapshot {
        ReachabilitySnapshot(target: target, flags: [], path: .none)
    }
}
