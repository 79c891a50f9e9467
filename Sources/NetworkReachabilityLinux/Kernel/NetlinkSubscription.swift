import NetworkReachabilityPOSIX
import NetworkReachabilityCore
import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The rtnetlink subscription: links, addresses, routes and rules of both families, and the router
/// advertisement options the kernel passes on, read by blocking in `poll` on the socket and an `eventfd`
/// (for wake-ups) — never by polling on a timer. The one deadline it keeps is the next advertised lifetime
/// to lapse.
///
/// Messages are drained until the socket would block, so a burst costs one evaluation pass. Datagrams
/// from user space (sender port id ≠ 0) are dropped and counted; on `ENOBUFS` the links are re-read and
/// advertisements solicited again.
final class NetlinkSubscription: RoutingSubscription, @unchecked Sendable {
    private let subscription: NetlinkSocket
    private let wakeDescriptor: Int32
    private let queries: KernelQueries
    private let classifier: InterfaceClassifier
    private let serviceLinkTypes: ServiceLinkTypes
    private let hosts: HostDirectory
    private let provisioning: ProvisioningDirectory
    private let namespace: NetworkNamespace?
    /// `nil` when inotify is unavailable: then only network changes trigger re-resolution.
    private let configurationFiles: ConfigurationFileWatcher?
    private let watchedNamespace: NetworkNamespace?
    // Touched only on the monitor's thread (waitForChanges, evaluate, close).
    private var links: LinkTable
    /// The gateways' link-layer addresses that networks' identities rest on.
    private var neighbours = NeighbourBook()
    /// Set when a link came back (up, carrier): the kernel kept its permanent neighbour entries through the loss and
    /// will not announce them again, so the table is read once the batch is drained.
    private var rereadsNeighbours = false
    /// Each interface's gateways as the last passes found them, kept while no change can have moved them.
    private var interfaceGateways: [Int: NetworkIdentityReader.Gateways] = [:]
    private var sharing = RouteSharing()
    /// Whether the internet's route may have several next hops, so a pass asks its table entry along with the probes
    /// (``TargetEvaluator/asksInternetEntries``). True until a pass found a single next hop; true again when a route
    /// message names a choice of next hops (`RTA_MULTIPATH`, a next-hop object) or notifications were lost: only such
    /// a message makes the internet's route multipath.
    private var internetMayBeMultipath = true
    /// Whether `/etc/resolv.conf` names a server, read when first needed and again after the file changed or
    /// systemd-resolved stopped; never kept without a watcher to say so.
    private var nameServersConfigured: Bool?
    /// The connection whose end says systemd-resolved stopped, held while resolv.conf names its stub.
    private let systemdResolved = SystemdResolvedWatch()
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    // Read from any thread.
    private let counters = Locked(MonitorStatistics())
    /// Set when a DNS64 discovery ended: every target is evaluated again.
    private let provisionsChanged = Locked(false)
    /// Set by `close()`; `wake()` checks it under the lock so it never writes to a closed, maybe reused, descriptor.
    private let isClosed = Locked(false)

    init(
        namespace: NetworkNamespace?, classifier: InterfaceClassifier, serviceLinkTypes: ServiceLinkTypes,
        hosts: HostDirectory, provisioning: ProvisioningDirectory, receiveBufferSize: Int?
    ) throws(ReachabilityError) {
        // Subscribe before the first dump, so no change between the two is missed.
        subscription = try NetlinkSocket(
            groups: cnl_reachability_groups(), nonBlocking: true, receiveBufferSize: receiveBufferSize, namespace: namespace)
        do {
            wakeDescriptor = try SystemCall.run("eventfd") { cnl_wake_eventfd() }
        } catch {
            subscription.close()
            throw error
        }
        queries = KernelQueries(namespace: namespace)
        self.classifier = classifier
        self.serviceLinkTypes = serviceLinkTypes
        self.hosts = hosts
        self.provisioning = provisioning
        self.namespace = namespace
        // A named namespace, given or the one the process runs in, is watched for deletion.
        watchedNamespace = namespace ?? NetworkNamespace.current()
        configurationFiles = ConfigurationFileWatcher(namespace: watchedNamespace)
        do {
            links = LinkTable(try queries.links())
            neighbours = NeighbourBook(try queries.neighbours())
        } catch {
            subscription.close()
            SystemCall.close(wakeDescriptor)
            throw error
        }
        solicitAdvertisements()
        // A DNS64 answer can change the internet's prefixes and every IPv4 address's path (hosts' too).
        provisioning.onChange { [weak self] in
            guard let self else { return }
            provisionsChanged.withLock { $0 = true }
            wake()
        }
    }

    // MARK: - RoutingSubscription

    func waitForChanges() -> RoutingChange {
        var descriptors = [
            pollfd(fd: subscription.descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: configurationFiles?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),  // -1 is skipped
            pollfd(fd: systemdResolved.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        // Block without end, unless an advertised lifetime lapses or a refused systemd-resolved is tried again first.
        let deadline = [provisioning.nextDeadline, systemdResolved.retryDeadline].compactMap { $0 }.min()
        let timeout = deadline.map { Int32(clamping: max(0, $0 - MonotonicClock.milliseconds())) } ?? -1
        let ready: Int32
        do {
            ready = try SystemCall.run("poll") { poll(&descriptors, nfds_t(descriptors.count), timeout) }
        } catch {
            return .failed(error)
        }
        let now = MonotonicClock.milliseconds()
        if ready == 0 {
            if provisioning.expire(at: now) { return .changed(.everything) }
            guard systemdResolved.retryIsDue(at: now) else { return .woken }
            provisioning.rediscover()
            nameServersConfigured = nil
            return .resolverConfigurationChanged
        }
        if descriptors[1].revents != 0 { SystemCall.consumeEvent(wakeDescriptor) }
        let files = descriptors[2].revents != 0 ? configurationFiles?.drain() ?? [] : []
        if files.contains(.namespaceDeleted) {
            return .failed(.networkNamespaceDeleted(watchedNamespace?.path ?? ""))
        }
        if files.contains(.resolverConfiguration) { systemdResolved.filesChanged() }
        let resolverStopped = descriptors[3].revents != 0 && systemdResolved.drain()
        let resolverChanged =
            files.contains(.resolverConfiguration) || resolverStopped || systemdResolved.retryIsDue(at: now)
        // DNS64 is asked again here, not by the monitor, so it happens even when network changes arrived in
        // the same wake-up and the answer below says only `.changed`.
        if resolverChanged {
            provisioning.rediscover()
            nameServersConfigured = nil
        }
        let change = descriptors[0].revents != 0 ? drain() : .woken
        if case .failed = change { return change }
        let discovered = provisionsChanged.withLock { changed in
            defer { changed = false }
            return changed
        }
        if discovered { return .changed(.everything) }
        return change == .woken && resolverChanged ? .resolverConfigurationChanged : change
    }

    func wake() {
        isClosed.withLock { closed in
            guard !closed else { return }
            SystemCall.signalEvent(wakeDescriptor)
        }
    }

    func beginPass(after changes: NetworkChanges) -> any RoutingPass {
        interfaceGateways = NetworkIdentityReader.forgettingGateways(after: changes, interfaceGateways)
        return NetlinkPass(of: self, after: changes, evaluator: makePassEvaluator())
    }

    /// Evaluates one part of `pass`'s targets, with what the pass asked once for all its parts; then keeps what the
    /// pass found of the internet's next hops for the passes after it.
    func evaluate(_ targets: [DueTarget], in pass: NetlinkPass) -> [TargetEvaluation] {
        defer { if let isMultipath = pass.evaluator.internetIsMultipath { internetMayBeMultipath = isMultipath } }
        let evaluations = sharing.evaluate(
            targets, after: pass.changes, with: pass.evaluator, tables: &pass.tables, queries: queries)
        let identities =
            pass.identities
            ?? NetworkIdentityReader(queries: queries, links: links, knownGateways: interfaceGateways) {
                [unowned self] address, index in neighbours.linkAddress(of: address, onInterface: index)
            }
        pass.identities = identities
        identities.seed(from: evaluations.lazy.compactMap { try? $0.result.get() })
        let identified = evaluations.map { evaluation in
            guard case .success(let snapshot) = evaluation.result else { return evaluation }
            var identified = evaluation
            // A failed lookup of the gateway leaves the path without an identity, not the target without an answer.
            identified.result = .success((try? identities.identified(snapshot)) ?? snapshot)
            return identified
        }
        interfaceGateways = identities.gatewaysByInterface
        for (index, gateways) in interfaceGateways {
            for gateway in [gateways.ipv4, gateways.ipv6].compactMap({ $0 }) { neighbours.watch(gateway, onInterface: index) }
        }
        return identified
    }

    /// The evaluator of a new pass, told what the subscription keeps between passes: whether the internet's route
    /// may be multipath, and whether resolv.conf names a server (kept only while a watcher says when it changes).
    private func makePassEvaluator() -> TargetEvaluator {
        // Watched names always have an entry (made by `watch` with the caller's timeout), so this timeout is unused.
        let evaluator = TargetEvaluator(
            queries: queries, links: links, classifier: classifier, serviceLinkTypes: serviceLinkTypes,
            provisioning: provisioning, hosts: hosts, resolutionTimeout: NetworkReachability.defaultResolutionTimeout,
            refreshesHosts: false,
            nameServersConfigured: ResolverConfiguration.namesAServer)
        evaluator.asksInternetEntries = internetMayBeMultipath
        if configurationFiles != nil {
            if nameServersConfigured == nil {
                let systemdResolved = systemdResolved
                let configuration = ResolverConfiguration.current { systemdResolved.follow(true) }
                if !configuration.isSystemdResolvedStub { systemdResolved.follow(false) }
                nameServersConfigured = !configuration.nameServers.isEmpty
            }
            evaluator.nameServersConfigured = nameServersConfigured
        }
        return evaluator
    }

    func close() {
        isClosed.withLock { closed in
            guard !closed else { return }
            closed = true
            subscription.close()
            SystemCall.close(wakeDescriptor)
        }
        configurationFiles?.close()
        systemdResolved.close()
        queries.close()
    }

    var statistics: MonitorStatistics {
        var counted = counters.withLock { $0 }
        counted.kernelRequests = queries.requestCount
        return counted
    }

    var descriptors: [Int32] {
        [subscription.descriptor, wakeDescriptor] + (configurationFiles.map { [$0.descriptor] } ?? [])
            + (systemdResolved.descriptor >= 0 ? [systemdResolved.descriptor] : [])
    }

    // MARK: - Draining

    private func drain() -> RoutingChange {
        var changes = NetworkChanges()
        var relevant = false
        var advertised = false
        var overflowed = false
        var malformed = 0
        var foreign = 0
        defer {
            counters.withLock {
                $0.malformedMessages += malformed
                $0.foreignMessages += foreign
                if overflowed { $0.resynchronizations += 1 }
            }
        }
        while true {
            let datagram: NetlinkSocket.QueuedDatagram?
            do {
                datagram = try subscription.receiveQueued(into: &buffer)
            } catch {
                return .failed(error)
            }
            guard let datagram else { break }
            switch datagram {
            case .kernel(let count):
                let broken = NetlinkMessage.walk(buffer[0..<count]) { message in
                    switch apply(message, to: &changes) {
                    case .relevant: relevant = true
                    case .advertised: advertised = true
                    case .malformed: malformed += 1
                    case .ignored: break
                    }
                }
                malformed += broken
            case .foreign: foreign += 1
            case .truncated: malformed += 1
            case .overflowed: overflowed = true
            }
        }
        // The kernel notifies some changes before it finishes them, still holding RTNL: an IPv4 route
        // deletion before the route leaves the table, a link going down before its routes are flushed.
        // Lookups take no lock, so wait for the lock to be free before anything is looked up.
        if relevant || overflowed { SystemCall.awaitRoutingLock(subscription.descriptor) }
        if rereadsNeighbours && !overflowed {
            rereadsNeighbours = false
            do {
                neighbours = neighbours.refreshed(with: try queries.neighbours())
            } catch {
                return .failed(error)
            }
        }
        guard overflowed else { return relevant ? .changed(changes) : advertised ? .changed(.everything) : .woken }
        rereadsNeighbours = false  // read below
        sharing.forget()
        internetMayBeMultipath = true
        do {
            links = LinkTable(try queries.links())
            neighbours = neighbours.refreshed(with: try queries.neighbours())
        } catch {
            return .failed(error)
        }
        solicitAdvertisements()  // the kernel keeps no copy of the advertisements the overflow may have lost
        return .changed(.everything)
    }

    /// Asks the routers on every usable interface to advertise now (where the process may send raw ICMPv6),
    /// rather than waiting minutes for their next unsolicited advertisement; at most once a minute.
    private func solicitAdvertisements() {
        guard provisioning.claimSolicitation(at: MonotonicClock.milliseconds()) else { return }
        for link in links.allLinks() where link.isReadyToCarry && !link.isLoopback {
            if let namespace {
                try? namespace.perform { SystemCall.sendRouterSolicitation(interfaceIndex: link.index) }
            } else {
                SystemCall.sendRouterSolicitation(interfaceIndex: link.index)
            }
        }
    }

    private enum Disposition { case relevant, advertised, malformed, ignored }

    /// Applies one message to the subscription's state and records in `changes` what it touched.
    private func apply(_ message: NetlinkMessage, to changes: inout NetworkChanges) -> Disposition {
        switch KernelMessage(message) {
        case nil: return .malformed
        case .link(let link):
            // A link that comes up or regains carrier can revive routes through it without any route
            // notification (IPv4 sends none), so any target may now take it.
            if let before = links.link(index: link.index), !link.isDeletion, Self.usability(of: link) > Self.usability(of: before)
            {
                changes.markEverything()
                rereadsNeighbours = true
            } else {
                changes.recordLink(link.index)
            }
            links.apply(link)
            if link.isDeletion { _ = provisioning.forgetInterface(link.index) }
            // A link that cannot carry may come back on another network: its gateways are learned anew.
            if link.isDeletion || !link.isReadyToCarry { neighbours.forget(interfaceIndex: link.index) }
            return .relevant
        case .address(let address):
            changes.recordAddress(address.address, onInterface: address.interfaceIndex)
            return .relevant
        case .route(let route):
            changes.recordRoute(route.prefix)
            if route.hasNextHopChoice { internetMayBeMultipath = true }
            sharing.apply(
                route, deleted: message.type == UInt16(RTM_DELROUTE),
                replacing: message.type == UInt16(RTM_NEWROUTE) && message.flags & UInt16(NLM_F_REPLACE) != 0)
            return .relevant
        case .rule:
            changes.markEverything()
            return .relevant
        case .routerAdvertisement(let advertisement):
            return provisioning.record(advertisement, at: MonotonicClock.milliseconds()) ? .advertised : .ignored
        case .neighbour(let neighbour):
            // Only a gateway an identity rests on matters, and only when its link-layer address changed: the states
            // an entry passes through (reachable, stale, probe) are most of these messages.
            guard neighbours.apply(neighbour) else { return .ignored }
            changes.recordLink(neighbour.interfaceIndex)
            return .relevant
        case .other: return .ignored
        }
    }

    /// Orders a link's states by what routes through it can do: down, up without carrier, ready to carry.
    private static func usability(of link: Link) -> Int {
        link.isReadyToCarry ? 2 : link.isUp ? 1 : 0
    }
}

/// The links as last announced by the kernel, kept by the subscription.
struct LinkTable: LinkSource {
    private(set) var byIndex: [Int: Link] = [:]

    init(_ links: [Link] = []) {
        for link in links { byIndex[link.index] = link }
    }

    /// Applies an `RTM_NEWLINK`/`RTM_DELLINK`.
    mutating func apply(_ link: Link) {
        byIndex[link.index] = link.isDeletion ? nil : link
    }

    func link(index: Int) -> Link? { byIndex[index] }

    func allLinks() -> [Link] { byIndex.values.sorted { $0.index < $1.index } }
}
