/// The interface a path leaves through.
public struct NetworkInterface: Sendable, Hashable, Codable {
    /// What kind of link an interface is, from sysfs and the link's hardware type.
    public enum InterfaceType: String, Sendable, Hashable, Codable, CaseIterable {
        /// `wireless` or `phy80211` in sysfs, or `DEVTYPE=wlan`.
        case wifi
        /// Ethernet hardware type that is none of the others: physical, veth, bridge, bond, VLAN.
        case wiredEthernet
        /// `DEVTYPE=wwan`, or a raw-IP link driven by a cellular modem driver.
        case cellular
        /// The loopback interface.
        case loopback
        /// Anything else: tun/tap, WireGuard, PPP, tunnels.
        case other
    }

    /// The interface name, e.g. `eth0`.
    public var name: String
    /// The kernel's interface index.
    public var index: Int
    /// The classified kind of link.
    public var type: InterfaceType
    /// The kernel's link kind (`IFLA_INFO_KIND`, e.g. `veth`, `tun`, `wireguard`) where known.
    public var linkKind: String?

    /// Whether the interface is a VPN's tunnel: a tun or tap device (link kind `tun`: OpenVPN, OpenConnect,
    /// Tailscale, tun2socks) or a WireGuard link (kind `wireguard`), unless it is cellular: a modem's PPP link that a
    /// user-space PPP daemon made as a tun carries the modem's own traffic. What a tunnel sends leaves the host through
    /// another interface, a path's ``ReachabilityPath/underlying`` one. The one rule every path and restriction asks.
    public var isVPN: Bool { type != .cellular && (linkKind == "tun" || linkKind == "wireguard") }

    /// Makes an interface description.
    public init(name: String, index: Int, type: InterfaceType, linkKind: String? = nil) {
        self.name = name
        self.index = index
        self.type = type
        self.linkKind = linkKind
    }
}

extension NetworkInterface {
    private enum CodingKeys: String, CodingKey { case name, index, type, linkKind }

    /// Encodes `{"name", "index", "type", "linkKind"}`, `linkKind` null where the kernel names none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(index, forKey: .index)
        try container.encode(type, forKey: .type)
        try container.encode(linkKind, forKey: .linkKind)
    }
}
