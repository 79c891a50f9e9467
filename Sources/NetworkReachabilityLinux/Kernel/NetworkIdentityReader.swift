import NetworkReachabilityCore
import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Gives paths the identity of the network their interface is attached to (`NetworkFacts`): per interface, the
/// kernel's gateway out of it for each family (the internet's probes looked up pinned to the interface, both in one
/// round trip) and those gateways' link-layer addresses. Asked once per interface per monitor pass or read.
final class NetworkIdentityReader {
    /// An interface's gateway for each family, as the pinned lookups found them, or the IPv4 one as the internet's
    /// own answer named it (then the IPv6 router is asked only where `NetworkFacts.needsIPv6Router`).
    struct Gateways: Sendable, Equatable {
        var ipv4: IPAddress?
        var ipv6: IPAddress?
        var knowsIPv6 = true
    }

    private let queries: KernelQueries
    private let links: any LinkSource
    /// Where gateways' link-layer addresses come from: the subscription's book, or one dump per read.
    private let linkAddress: (IPAddress, Int) throws(ReachabilityError) -> [UInt8]?
    private var byInterface: [Int: NetworkIdentity?] = [:]
    /// The interfaces' gateways: those a subscription kept from earlier passes (no change since could move them), and
    /// those this reader asked.
    private(set) var gatewaysByInterface: [Int: Gateways]

    init(
        queries: KernelQueries, links: any LinkSource, knownGateways: [Int: Gateways] = [:],
        linkAddress: @escaping (IPAddress, Int) throws(ReachabilityError) -> [UInt8]?
    ) {
        self.queries = queries
        self.links = links
        gatewaysByInterface = knownGateways
        self.linkAddress = linkAddress
    }

    /// `known` without the gateways `changes` can have moved: all of them after a change the backend cannot place or
    /// a route to a prefix that holds one of the internet's probes (the pinned lookups' destinations); those of the
    /// interfaces whose links, addresses or gateways' MAC addresses changed otherwise. A pass then asks the kernel only
    /// for the interfaces it forgot: a route change elsewhere costs no lookup more.
    static func forgettingGateways(after changes: NetworkChanges, _ known: [Int: Gateways]) -> [Int: Gateways] {
        let probes = [TargetEvaluator.internetProbeIPv4, TargetEvaluator.internetProbeIPv6]
        if changes.affectsEverything || changes.routePrefixes.contains(where: { prefix in probes.contains(where: prefix.contains) }) {
            return [:]
        }
        return known.filter { !changes.interfaces.contains($0.key) }
    }

    /// A reader for one read: the neighbour tables are dumped when the first gateway is looked up.
    static func forRead(queries: KernelQueries, links: any LinkSource) -> NetworkIdentityReader {
        var table: NeighbourBook?
        return NetworkIdentityReader(queries: queries, links: links) { (address, index) throws(ReachabilityError) in
            if table == nil { table = NeighbourBook(try queries.neighbours()) }
            return table?.linkAddress(of: address, onInterface: index)
        }
    }

    /// Takes the IPv4 gateway of the interfaces the internet's answers among `snapshots` leave through, as those
    /// answers name them: the kernel's best route to the probe leaves through that interface, so it is also the best
    /// out of it, and a pass that evaluated the internet asks nothing more for its interface. Call before
    /// ``identified(_:)``. Measured: a default route's removal and return under `reach watch`, `scripts/bench-latency`.
    func seed(from snapshots: some Sequence<ReachabilitySnapshot>) {
        for snapshot in snapshots where snapshot.target.isInternet {
            guard let interface = snapshot.path.interface, let gateway = snapshot.path.gateway, gateway.family == .ipv4,
                gatewaysByInterface[interface.index] == nil
            else { continue }
            gatewaysByInterface[interface.index] = Gateways(ipv4: gateway, knowsIPv6: false)
        }
    }

    /// `snapshot` with its path's ``ReachabilityPath/network`` set, and those of the links under its VPN: the one
    /// place a Linux path gets them.
    func identified(_ snapshot: ReachabilitySnapshot) throws(ReachabilityError) -> ReachabilitySnapshot {
        let network = try snapshot.path.interface.flatMap { (interface) throws(ReachabilityError) in
            try identity(ofInterface: interface.index)
        }
        var underlying = snapshot.path.underlying
        for position in underlying.indices {
            underlying[position].network = try identity(ofInterface: underlying[position].interface.index)
        }
        guard network != snapshot.path.network || underlying != snapshot.path.underlying else { return snapshot }
        var identified = snapshot
        identified.path.network = network
        identified.path.underlying = underlying
        return identified
    }

    /// The identity of the network the interface with `index` is attached to, asked once per reader.
    func identity(ofInterface index: Int) throws(ReachabilityError) -> NetworkIdentity? {
        if let known = byInterface[index] { return known }
        guard let salt = HostSalt.current else { return nil }
        let identity = try facts(ofInterface: index).flatMap { $0.identity(salt: salt) }
        byInterface[index] = identity
        return identity
    }

    private func facts(ofInterface index: Int) throws(ReachabilityError) -> NetworkFacts? {
        guard let link = try links.link(index: index), !link.isLoopback else { return nil }
        var gateways = try gateways(ofInterface: index)
        var facts = NetworkFacts(hasLinkLayer: Self.hasLinkLayer(link))
        if let gateway = gateways.ipv4 {
            facts.ipv4Gateway = gateway
            facts.ipv4GatewayLinkAddress = try linkAddress(gateway, index)
        }
        if facts.needsIPv6Router && !gateways.knowsIPv6 {
            gatewaysByInterface[index] = nil
            gateways = try self.gateways(ofInterface: index)
        }
        if facts.needsIPv6Router, let router = gateways.ipv6 {
            facts.ipv6Router = router
            facts.ipv6RouterLinkAddress = try linkAddress(router, index)
        }
        return facts
    }

    private func gateways(ofInterface index: Int) throws(ReachabilityError) -> Gateways {
        if let known = gatewaysByInterface[index] { return known }
        let answers = try queries.lookupRoutes(
            to: [TargetEvaluator.internetProbeIPv4, TargetEvaluator.internetProbeIPv6], outOf: index)
        var gateways = Gateways()
        if case .route(let route) = answers[0] { gateways.ipv4 = route.gateway }
        if case .route(let route) = answers[1] { gateways.ipv6 = route.gateway }
        gatewaysByInterface[index] = gateways
        return gateways
    }

    /// Whether the link resolves neighbours to link-layer addresses: Ethernet and what poses as it (Wi-Fi, veth,
    /// bridges), Token Ring's heirs, InfiniBand. PPP, tun and raw-IP modems do not.
    static func hasLinkLayer(_ link: Link) -> Bool {
        [UInt16(ARPHRD_ETHER), UInt16(ARPHRD_IEEE802), UInt16(ARPHRD_INFINIBAND)].contains(link.hardwareType)
    }
}
