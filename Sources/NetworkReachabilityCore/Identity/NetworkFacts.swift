/// What one interface's network shows of itself, as a platform reads it: the facts a ``NetworkIdentity`` is a hash
/// of. The one place the rule lives that says which facts count and how they combine.
package struct NetworkFacts: Sendable, Hashable {
    /// Whether the interface has link-layer addresses (Ethernet, Wi-Fi); PPP, tunnels and raw-IP modems do not.
    package var hasLinkLayer: Bool
    /// The IPv4 default gateway out of the interface, if it has one.
    package var ipv4Gateway: IPAddress?
    /// Its link-layer address, once the host has resolved it.
    package var ipv4GatewayLinkAddress: [UInt8]?
    /// The IPv6 router out of the interface (its link-local address), if it has one.
    package var ipv6Router: IPAddress?
    /// Its link-layer address, once resolved.
    package var ipv6RouterLinkAddress: [UInt8]?

    /// Makes facts.
    package init(
        hasLinkLayer: Bool, ipv4Gateway: IPAddress? = nil, ipv4GatewayLinkAddress: [UInt8]? = nil,
        ipv6Router: IPAddress? = nil, ipv6RouterLinkAddress: [UInt8]? = nil
    ) {
        self.hasLinkLayer = hasLinkLayer
        self.ipv4Gateway = ipv4Gateway
        self.ipv4GatewayLinkAddress = ipv4GatewayLinkAddress
        self.ipv6Router = ipv6Router
        self.ipv6RouterLinkAddress = ipv6RouterLinkAddress
    }

    /// Whether the IPv6 router can matter: it does only where there is no IPv4 gateway on a link with a link layer
    /// (``identity(salt:)``), so a platform may skip asking for it otherwise.
    package var needsIPv6Router: Bool { !(hasLinkLayer && ipv4Gateway != nil) }

    /// The identity these facts make under `salt`, or `nil` while they make none.
    ///
    /// On a link with a link layer the identity rests on the gateway's MAC address alone, as Windows' network
    /// location does: the IPv4 gateway's, or on a network with no IPv4 gateway the IPv6 router's. One anchor, not a
    /// mix, so that facts arriving at different moments (an IPv6 router that advertises a second after the IPv4
    /// gateway answered) do not change the identity of a network that stayed the same. While that gateway's MAC is
    /// not resolved yet there is no identity (`nil`), not one that would change when it is. On a link without a
    /// link layer the IPv6 router's link-local address is the anchor, where there is one.
    package func identity(salt: [UInt8]) -> NetworkIdentity? {
        let anchor: (NetworkIdentity.Ingredient, [UInt8])
        if hasLinkLayer {
            if ipv4Gateway != nil {
                guard let mac = ipv4GatewayLinkAddress else { return nil }
                anchor = (.gatewayMAC, mac)
            } else if ipv6Router != nil, let mac = ipv6RouterLinkAddress {
                anchor = (.gatewayMAC, mac)
            } else {
                return nil
            }
        } else if let router = ipv6Router {
            anchor = (.router, router.withoutZone.bytes)
        } else {
            return nil
        }
        let message = Array("reach network identity 1\n\(anchor.0.rawValue)=".utf8) + anchor.1
        let code = SHA256.authenticationCode(message, key: salt)
        let id = code.prefix(8).map { byte in String(byte, radix: 16).leftPadded(to: 2) }.joined()
        return NetworkIdentity(id: id, ingredients: [anchor.0])
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
