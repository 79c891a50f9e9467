import NetworkReachabilityCore
import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Gives paths the identity of the network their interface is attached to (``NetworkFacts``): per interface, the
/// kernel's gateway out of it for each family (a lookup of the internet's probe pinned to the interface) and those
/// gateways' link-layer addresses. Asked once per interface per monitor pass or read.
final class NetworkIdentityReader {
    private let queries: KernelQueries
    private let links: any LinkSource
    /// Where gateways' link-layer addresses come from: the subscription's book, or one dump per read.
    private let linkAddress: (IPAddress, Int) throws(ReachabilityError) -> [UInt8]?
    private var byInterface: [Int: NetworkIdentity?] = [:]
    /// The gateways the identities rested on, by interface: the ones whose changes the subscription follows.
    private(set) var gateways: [(address: IPAddress, interfaceIndex: Int)] = []

    init(
        queries: KernelQueries, links: any LinkSource,
        linkAddress: @escaping (IPAddress, Int) throws(ReachabilityError) -> [UInt8]?
    ) {
        self.queries = queries
        self.links = links
        self.linkAddress = linkAddress
    }

    /// A reader for one read: the neighbour tables are dumped when the first gateway is looked up.
    static func forRead(queries: KernelQueries, links: any LinkSource) -> NetworkIdentityReader {
        var dumped: [NeighbourBook.Key: [UInt8]]?
        return NetworkIdentityReader(queries: queries, links: links) { (address, index) throws(ReachabilityError) in
            if dumped == nil {
                var table: [NeighbourBook.Key: [UInt8]] = [:]
                for family in [IPAddress.Family.ipv4, .ipv6] {
                    for neighbour in try queries.neighbours(family: family) {
                        guard let linkAddress = neighbour.linkLayerAddress else { continue }
                        table[NeighbourBook.Key(interfaceIndex: neighbour.interfaceIndex, address: neighbour.address)] =
                            linkAddress
                    }
                }
                dumped = table
            }
            return dumped?[NeighbourBook.Key(interfaceIndex: index, address: address.withoutZone)]
        }
    }

    /// `snapshot` with its path's ``ReachabilityPath/network`` set: the one place a Linux path gets it.
    func identified(_ snapshot: ReachabilitySnapshot) throws(ReachabilityError) -> ReachabilitySnapshot {
        let network = try snapshot.path.interface.flatMap { (interface) throws(ReachabilityError) in
            try identity(ofInterface: interface.index)
        }
        guard network != snapshot.path.network else { return snapshot }
        var identified = snapshot
        identified.path.network = network
        return identified
    }

    /// The identity of the network the interface with `index` is attached to, asked once per reader.
    func identity(ofInterface index: Int) throws(ReachabilityError) -> NetworkIdentity? {
        if let known = byInterface[index] { return known }
        let identity = try facts(ofInterface: index).flatMap { $0.identity(salt: HostSalt.current) }
        byInterface[index] = identity
        return identity
    }

    private func facts(ofInterface index: Int) throws(ReachabilityError) -> NetworkFacts? {
        guard let link = try links.link(index: index), !link.isLoopback else { return nil }
        var facts = NetworkFacts(hasLinkLayer: Self.hasLinkLayer(link))
        if case .route(let route) = try queries.lookupRoute(
            to: TargetEvaluator.internetProbeIPv4, from: nil, outOf: index),
            let gateway = route.gateway
        {
            facts.ipv4Gateway = gateway
            facts.ipv4GatewayLinkAddress = try linkAddress(gateway, index)
            gateways.append((gateway, index))
        }
        if case .route(let route) = try queries.lookupRoute(
            to: TargetEvaluator.internetProbeIPv6, from: nil, outOf: index),
            let router = route.gateway
        {
            facts.ipv6Router = router
            facts.ipv6RouterLinkAddress = try linkAddress(router, index)
            gateways.append((router, index))
        }
        return facts
    }

    /// Whether the link resolves neighbours to link-layer addresses: Ethernet and what poses as it (Wi-Fi, veth,
    /// bridges), Token Ring's heirs, InfiniBand. PPP, tun and raw-IP modems do not.
    static func hasLinkLayer(_ link: Link) -> Bool {
        [UInt16(ARPHRD_ETHER), UInt16(ARPHRD_IEEE802), UInt16(ARPHRD_INFINIBAND)].contains(link.hardwareType)
    }
}
