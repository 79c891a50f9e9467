import Logging
import NetworkReachabilityCore
import NetworkReachabilityPOSIX
public import NetworkReachabilityValidationCore

/// A network your tests drive by hand, in the spirit of swift-nio's `NIOEmbedded`: interfaces, carrier,
/// addresses, routes, host names and DNS64, with no root, no namespace and no real traffic.
///
/// Every public API of `NetworkReachability` works on top of it unchanged (reads, listeners, `updates`,
/// waits, `ReachabilityWorkQueue`), through the same evaluation the kernel backend uses. Each change is
/// evaluated and delivered before the method that made it returns, so tests are deterministic: a listener
/// on a queue has its call queued by then (drain the queue with `queue.sync {}`), an `updates` sequence has
/// its snapshot buffered, a wait has returned.
///
/// ```swift
/// let network = SimulatedNetwork()
/// try network.addInterface("wlan0", type: .wifi)
/// try network.addAddress("192.168.1.20/24", to: "wlan0")
/// try network.addDefaultRoute(via: "192.168.1.1")
/// let reachability = try NetworkReachability(target: .internet, network: network)
/// #expect(reachability.status == .reachable(.ethernetOrWiFi))
/// try network.setCarrier(false, on: "wlan0")                      // the cable is pulled
/// #expect(reachability.status == .notReachable)
/// ```
///
/// It behaves as Linux does where that matters to an app, and a kernel test holds it to that: an address
/// brings the route to its prefix; a link taken down loses every route through it and its IPv6 addresses
/// (bringing it up restores only its IPv4 prefix routes, so add the rest again, as on a real host); a link
/// without carrier keeps its routes but cannot carry packets.
/// It starts with only the loopback interface `lo`.
public final class SimulatedNetwork: Sendable {
    /// The simulated kernel and the resolver behind the network.
    package let backend: SimulatedRoutingBackend
    /// The monitor every object on this network listens through.
    package let monitor: ReachabilityMonitor
    /// What ``setDetails(_:on:)`` set: the modem's and network manager's facts the `NetworkReachabilityRadio`
    /// product reads on a real host.
    private let linkDetails = SimulatedLinkDetails()

    /// Makes a network with only the loopback interface `lo` (127.0.0.1/8 and ::1/128).
    ///
    /// - Parameter clock: what the timeouts and delays of everything on this network are measured on: a
    ///   ``SimulatedClock`` to move them by hand, or the continuous clock.
    public init(clock: any Clock<Duration> = ContinuousClock()) {
        backend = SimulatedRoutingBackend()
        monitor = ReachabilityMonitor(backend: backend, clock: clock)
        monitor.attach(linkDetails)
    }

    // MARK: - Interfaces

    /// Adds an interface, up and with carrier.
    ///
    /// - Parameters:
    ///   - name: 1 to 15 bytes, as Linux allows, e.g. `eth0`, `wlan0`, `wwan0`.
    ///   - type: the kind of link; `cellular` makes paths through it WWAN.
    ///   - isPointToPoint: a tunnel or PPP link; paths through it are `transientConnection`.
    ///   - linkKind: the kernel's kind of link, e.g. `tun` or `wireguard` for a VPN's tunnel
    ///     (`NetworkInterface.isVPN`), whose paths name the default route beside it as their
    ///     `ReachabilityPath.underlying` link.
    public func addInterface(
        _ name: String, type: NetworkInterface.InterfaceType = .wiredEthernet, isPointToPoint: Bool = false,
        linkKind: String? = nil
    ) throws(SimulatedNetworkError) {
        let utf8 = name.utf8
        guard (1...15).contains(utf8.count), !name.contains(where: { $0 == "/" || $0 == ":" || $0.isWhitespace }) else {
            throw .invalidInterfaceName(name)
        }
        try backend.change { state throws(SimulatedNetworkError) in
            guard state.index(of: name) == nil else { throw .interfaceExists(name) }
            state.addInterface(named: name, type: type, isPointToPoint: isPointToPoint, linkKind: linkKind)
        }
    }

    /// Removes an interface with its addresses and every route through it.
    public func removeInterface(_ name: String) throws(SimulatedNetworkError) {
        try backend.change { state throws(SimulatedNetworkError) in state.removeInterface(try Self.index(of: name, in: state)) }
    }

    /// Takes an interface up or down (`ip link set … up|down`). Down drops every route through it and its IPv6
    /// addresses (Linux's default `keep_addr_on_down=0`); up brings back the routes to its remaining addresses'
    /// prefixes, not the routes added by hand.
    public func setInterface(_ name: String, up isUp: Bool) throws(SimulatedNetworkError) {
        try backend.change { state throws(SimulatedNetworkError) in state.setUp(isUp, try Self.index(of: name, in: state)) }
    }

    /// Gives or takes an interface's carrier, as plugging or pulling a cable, or joining or leaving Wi-Fi.
    public func setCarrier(_ hasCarrier: Bool, on name: String) throws(SimulatedNetworkError) {
        try backend.change { state throws(SimulatedNetworkError) in
            state.setCarrier(hasCarrier, try Self.index(of: name, in: state))
        }
    }

    /// Sets operstate `dormant`, as while 802.1X authentication runs: paths through it need intervention.
    public func setDormant(_ isDormant: Bool, on name: String) throws(SimulatedNetworkError) {
        try backend.change { state throws(SimulatedNetworkError) in
            state.setDormant(isDormant, try Self.index(of: name, in: state))
        }
    }

    /// Sets what a modem or a network manager says of an interface (`LinkDetails`: radio technology, signal,
    /// roaming, metered), as `NetworkReachabilityRadio` reads it on a real host; `nil` forgets it. Paths through
    /// the interface carry the details, and listeners hear the change. A signal that moved less than a step
    /// (`SignalStrength.isStep(from:)`) keeps the reading delivered before, and is not heard.
    public func setDetails(_ details: LinkDetails?, on name: String) throws(SimulatedNetworkError) {
        guard (try? backend.interfaces())?.contains(where: { $0.interface.name == name }) == true else {
            throw .unknownInterface(name)
        }
        backend.settle()
        linkDetails.set(details, ofInterface: name)
        backend.settle()
    }

    /// States how good the interface named `name` is (`LinkQuality`: its class and figures), as the kernel's reader
    /// measures it on a real host from the host's TCP flows; `nil` makes it unknown again. Objects that measure
    /// quality (`measuresQuality`) see it in their paths, and their `updates` hear a change of class.
    ///
    /// ```swift
    /// network.setQuality(LinkQuality(effectiveType: .type2G, rtt: .milliseconds(1_600), sampleCount: 12), on: "wwan0")
    /// ```
    public func setQuality(_ quality: LinkQuality?, on name: String) throws(SimulatedNetworkError) {
        guard (try? backend.interfaces())?.contains(where: { $0.interface.name == name }) == true else {
            throw .unknownInterface(name)
        }
        backend.settle()
        backend.quality.set(quality, ofInterface: name)
        backend.settle()
    }

    /// States which network the interface named `name` is attached to (`NetworkIdentity`), as a real host
    /// reads it from its gateway; `nil` makes it unknown. Paths through the interface carry it, and listeners hear a
    /// change of network even when nothing else changed, as they do when a laptop moves from one Wi-Fi to another.
    ///
    /// ```swift
    /// try network.setNetwork(NetworkIdentity(id: "7c21a9e04b3d5f86", ingredients: [.gatewayMAC]), on: "wlan0")
    /// ```
    public func setNetwork(_ identity: NetworkIdentity?, on name: String) throws(SimulatedNetworkError) {
        try backend.change { state throws(SimulatedNetworkError) in
            let index = try Self.index(of: name, in: state)
            state.setNetwork(identity, index)
        }
    }

    // MARK: - Addresses

    /// Adds an address with its prefix length, such as `192.168.1.20/24` or `2001:db8::20/64` (without a
    /// length, a host address). While the interface is up, the route to its prefix comes with it.
    public func addAddress(_ address: String, to name: String) throws(SimulatedNetworkError) {
        let (parsed, length) = try Self.prefix(address)
        try backend.change { state throws(SimulatedNetworkError) in
            state.addAddress(parsed, prefixLength: length, to: try Self.index(of: name, in: state))
        }
    }

    /// Removes an address, and the route to its prefix.
    public func removeAddress(_ address: String, from name: String) throws(SimulatedNetworkError) {
        let (parsed, _) = try Self.prefix(address)
        try backend.change { state throws(SimulatedNetworkError) in
            let index = try Self.index(of: name, in: state)
            guard state.interfaces.contains(where: { $0.index == index && $0.addresses.contains { $0.address == parsed } }) else {
                throw .noSuchAddress(address, interface: name)
            }
            state.removeAddress(parsed, from: index)
        }
    }

    // MARK: - Routes

    /// Adds a route (`ip route add`), through a gateway, an interface, or both.
    ///
    /// - Parameters:
    ///   - destination: a prefix such as `10.0.0.0/8` or `2001:db8::/32`; `default` is `0.0.0.0/0`, or `::/0`
    ///     with an IPv6 gateway.
    ///   - gateway: the next hop; without an interface, the one whose prefix holds it.
    ///   - interface: the interface that carries it; without a gateway, an on-link route.
    ///   - metric: lower wins among routes of the same prefix length.
    public func addRoute(
        to destination: String, via gateway: String? = nil, interface: String? = nil, metric: Int = 0
    ) throws(SimulatedNetworkError) {
        let nextHop = try gateway.map { text throws(SimulatedNetworkError) in try Self.address(text) }
        let prefix = try Self.routePrefix(destination, family: nextHop?.family)
        if let nextHop, nextHop.family != prefix.family {
            throw .familyMismatch(destination: destination, gateway: gateway ?? "")
        }
        try backend.change { state throws(SimulatedNetworkError) in
            let index: Int
            if let interface {
                index = try Self.index(of: interface, in: state)
            } else if let nextHop {
                guard let reaching = state.interfaceReaching(nextHop) else { throw .unreachableGateway(gateway ?? "") }
                index = reaching
            } else {
                throw .missingNextHop(destination)
            }
            guard state.interfaces.contains(where: { $0.index == index && $0.isUp }) else {
                throw .interfaceDown(interface ?? "\(index)")
            }
            state.addRoute(
                .init(destination: prefix.prefix, gateway: nextHop, interfaceIndex: index, metric: metric))
        }
    }

    /// Adds a default route through `gateway`, of the gateway's family.
    public func addDefaultRoute(via gateway: String, interface: String? = nil, metric: Int = 0) throws(SimulatedNetworkError) {
        try addRoute(to: "default", via: gateway, interface: interface, metric: metric)
    }

    /// What a route that carries no packets does with them.
    public enum RejectingRoute: Sendable {
        /// `unreachable`: the sender hears "network unreachable".
        case unreachable
        /// `blackhole`: dropped without a word.
        case blackhole
        /// `prohibit`: the sender hears "prohibited".
        case prohibit
    }

    /// Adds a route that carries no packets (`ip route add unreachable|blackhole|prohibit …`).
    public func addRoute(rejecting destination: String, as kind: RejectingRoute = .unreachable) throws(SimulatedNetworkError) {
        let prefix = try Self.routePrefix(destination, family: nil)
        let routeKind: SimulatedNetworkState.RouteKind =
            switch kind {
            case .unreachable: .unreachable
            case .blackhole: .blackhole
            case .prohibit: .prohibit
            }
        backend.change { state in state.addRoute(.init(destination: prefix.prefix, kind: routeKind)) }
    }

    /// Removes the routes to exactly `destination` (`default` is `0.0.0.0/0`), with `metric` when given.
    public func removeRoute(to destination: String, metric: Int? = nil) throws(SimulatedNetworkError) {
        let prefix = try Self.routePrefix(destination, family: nil)
        try backend.change { state throws(SimulatedNetworkError) in
            guard state.removeRoutes(to: prefix.prefix, metric: metric) > 0 else { throw .noSuchRoute(destination) }
        }
    }

    /// Removes the IPv4 and IPv6 default routes, if there are any: the usual way to go offline.
    public func removeDefaultRoutes() {
        backend.change { state in
            for family in [IPAddress.Family.ipv4, .ipv6] { state.removeRoutes(to: .all(family)) }
        }
    }

    // MARK: - Names

    /// Makes `name` resolve to `addresses`, in this order (none: the name exists without an address).
    /// Listeners of the host hear the change, as they would after a DNS change on a real host.
    public func setAddresses(_ addresses: [String], forHost name: String) throws(SimulatedNetworkError) {
        let host = try Self.hostName(name)
        var parsed: [IPAddress] = []
        for address in addresses { parsed.append(try Self.address(address)) }
        backend.change { state in state.names[host] = .addresses(parsed) }
    }

    /// Makes the resolution of `name` fail with `reason`, as `getaddrinfo` words it. A name never set fails
    /// with "Name or service not known".
    public func setResolutionFailure(forHost name: String, reason: String = "Temporary failure in name resolution")
        throws(SimulatedNetworkError)
    {
        let host = try Self.hostName(name)
        backend.change { state in state.names[host] = .failure(reason) }
    }

    // MARK: - NAT64

    /// Sets the NAT64 prefixes DNS64 discovery (RFC 7050) finds, such as `64:ff9b::/96`. They are used when
    /// the network is IPv6-only: the internet is reachable over IPv6 and not over IPv4.
    public func setDNS64Prefixes(_ prefixes: [String]) throws(SimulatedNetworkError) {
        var parsed: [NAT64Prefix] = []
        for prefix in prefixes {
            do {
                parsed.append(try NAT64Prefix(prefix))
            } catch {
                throw .invalidValue(error)
            }
        }
        backend.change(rediscoverDNS64: true) { state in state.dns64Prefixes = parsed }
    }

    // MARK: - Probes

    /// What probes of `ConnectivityValidator` get here, by URL; a URL without an answer refuses connections.
    private let probeAnswers = Locked<[String: SimulatedProbeAnswer]>([:])

    /// Makes the endpoint at `url` answer probes with `answer` from now on; `nil` makes it refuse connections.
    /// A validator sees the new answer when it probes next: after a network change, or its retry delay.
    public func setProbeAnswer(_ answer: SimulatedProbeAnswer?, for url: String) {
        probeAnswers.withLock { $0[url] = answer }
    }

    /// How many probes were sent to each URL.
    private let probeCounts = Locked<[String: Int]>([:])

    /// What the endpoint at `url` answers now; counts the probe.
    func probeAnswer(for url: String) -> SimulatedProbeAnswer? {
        probeCounts.withLock { $0[url, default: 0] += 1 }
        return probeAnswers.withLock { $0[url] }
    }

    /// How many probes reached the endpoint at `url` so far; a validator sends none while the network is not
    /// reachable.
    public func probeCount(for url: String) -> Int { probeCounts.withLock { $0[url] ?? 0 } }

    /// Sends a `ConnectivityValidator`'s probes into this network: pass it as the validator's `prober`.
    public var prober: any ConnectivityProbing { SimulatedProber(network: self) }

    // MARK: - Delivery

    /// Waits until every change and every new listener has been evaluated and delivered. Changes wait for
    /// this on their own; call it after starting to listen, to have the first status delivered.
    ///
    /// - Returns: false when the monitor had not finished after 10 seconds (a listener that blocks it).
    @discardableResult
    public func settle() -> Bool {
        backend.settle()
    }

    // MARK: - Parsing

    private static func index(of name: String, in state: SimulatedNetworkState) throws(SimulatedNetworkError) -> Int {
        guard let index = state.index(of: name) else { throw .unknownInterface(name) }
        return index
    }

    private static func address(_ text: String) throws(SimulatedNetworkError) -> IPAddress {
        do {
            return try IPAddress(text).withoutZone
        } catch {
            throw .invalidValue(error)
        }
    }

    private static func hostName(_ text: String) throws(SimulatedNetworkError) -> String {
        do {
            return try HostName(text).name.lowercased()
        } catch {
            throw .invalidValue(error)
        }
    }

    /// `address/length`, the length defaulting to the full address.
    private static func prefix(_ text: String) throws(SimulatedNetworkError) -> (IPAddress, Int) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let address = try address(String(parts[0]))
        let bits = address.bytes.count * 8
        guard parts.count == 2 else { return (address, bits) }
        guard let length = Int(parts[1]), (0...bits).contains(length) else { throw .invalidPrefixLength(text) }
        return (address, length)
    }

    private static func routePrefix(_ text: String, family: IPAddress.Family?) throws(SimulatedNetworkError)
        -> (prefix: IPPrefix, family: IPAddress.Family)
    {
        if text == "default" {
            let isIPv6 = family == .ipv6
            return (.all(isIPv6 ? .ipv6 : .ipv4), isIPv6 ? .ipv6 : .ipv4)
        }
        let (address, length) = try prefix(text)
        return (.init(address: address, length: length), address.family)
    }
}
