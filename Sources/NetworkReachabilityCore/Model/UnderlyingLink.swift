/// The link under a VPN's tunnel: the interface that carries what the tunnel sends, and what is known of it. A
/// path through a tunnel (``ReachabilityPath/isVPN``) names it in ``ReachabilityPath/underlying``, so that the costs
/// of the link under the tunnel (cellular, metered, roaming) are not hidden by it.
///
/// On Linux it is the route the host would take without the tunnel: the answer of a lookup marked with a firewall
/// mark that policy rules send past the tunnel (wg-quick's and NetworkManager's WireGuard), else the main table's
/// default routes that a split default (OpenVPN's `0.0.0.0/1` and `128.0.0.0/1`) shadows, one link for each leg of
/// a multipath default.
public struct UnderlyingLink: Sendable, Hashable {
    /// The interface the tunnel's packets leave through.
    public var interface: NetworkInterface
    /// The next hop of the route beside the tunnel, when it has one.
    public var gateway: IPAddress?
    /// What a modem or a network manager says of the interface (radio, roaming, metered), as a path's
    /// ``ReachabilityPath/details``.
    public var details: LinkDetails?
    /// The network the interface is attached to, as a path's ``ReachabilityPath/network``.
    public var network: NetworkIdentity?

    /// Makes a description of the link under a tunnel.
    public init(interface: NetworkInterface, gateway: IPAddress? = nil, details: LinkDetails? = nil, network: NetworkIdentity? = nil) {
        self.interface = interface
        self.gateway = gateway
        self.details = details?.isEmpty == true ? nil : details
        self.network = network
    }

    /// Whether traffic over this link costs: the rule ``ReachabilityPath/isExpensive`` applies to a path's own
    /// interface.
    public var isExpensive: Bool { ReachabilityPath.isExpensive(interface: interface, details: details, network: network) }
}

extension UnderlyingLink: Codable {
    private enum CodingKeys: String, CodingKey { case interface, gateway, isExpensive, network }

    /// Decodes what ``encode(to:)`` writes; `isExpensive` is derived, not read.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            interface: try container.decode(NetworkInterface.self, forKey: .interface),
            gateway: try container.decodeIfPresent(IPAddress.self, forKey: .gateway),
            details: try LinkDetails(from: decoder),
            network: try container.decodeIfPresent(NetworkIdentity.self, forKey: .network))
    }

    /// Encodes `interface`, `gateway`, `isExpensive` and `network` (null where unknown), and the known ``details``
    /// as keys of the same object (`radioTechnology`, `isRoaming`, `isMetered`…), as a path writes its own.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(interface, forKey: .interface)
        try container.encode(gateway, forKey: .gateway)
        try container.encode(isExpensive, forKey: .isExpensive)
        try container.encode(network, forKey: .network)
        try details?.encode(to: encoder)
    }
}
