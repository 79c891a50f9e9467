import NetworkReachabilityCore

/// A network that tests set by hand, kept the way the kernel keeps its own: links, addresses, routes, plus
/// the names a resolver would answer and the NAT64 prefixes DNS64 would reveal.
///
/// It answers route lookups as the kernel's FIB does for the main table (a local address first, then the
/// longest matching prefix, then the lowest metric), and changes as the kernel does: an address brings its
/// prefix route; a link taken down loses every route through it and its IPv6 addresses; one brought up gets
/// its remaining addresses' prefix routes back, not the routes added by hand. Values passed in are checked.
package struct SimulatedNetworkState: Sendable {
    /// One interface.
    package struct Interface: Sendable {
        package var name: String
        package var index: Int
        package var type: NetworkInterface.InterfaceType
        package var isPointToPoint: Bool
        /// The kernel's kind of link (`IFLA_INFO_KIND`), e.g. `tun`.
        package var linkKind: String?
        /// Administratively up (`ip link set … up`).
        package var isUp = true
        /// The lower layer has carrier (`IFF_LOWER_UP`).
        package var hasCarrier = true
        /// Operstate `dormant`, as while 802.1X authentication runs.
        package var isDormant = false
        package var addresses: [(address: IPAddress, prefixLength: Int)] = []
        /// The network it is attached to, as a test states it (``SimulatedNetwork/setNetwork(_:on:)``).
        package var network: NetworkIdentity?
    }

    /// What a route does with a packet.
    package enum RouteKind: Sendable, Hashable {
        case unicast, unreachable, blackhole, prohibit
    }

    /// One route of the main table.
    package struct Route: Sendable {
        package var destination: IPPrefix
        package var kind: RouteKind
        package var gateway: IPAddress?
        package var interfaceIndex: Int?
        package var metric: Int
        package var source: IPAddress?
        /// Made by the kernel for an address's prefix, rather than added by hand.
        package var isPrefixRoute = false

        package init(
            destination: IPPrefix, kind: RouteKind = .unicast, gateway: IPAddress? = nil,
            interfaceIndex: Int? = nil, metric: Int = 0, source: IPAddress? = nil
        ) {
            self.destination = destination
            self.kind = kind
            self.gateway = gateway
            self.interfaceIndex = interfaceIndex
            self.metric = metric
            self.source = source
        }
    }

    package private(set) var interfaces: [Interface] = []
    package private(set) var routes: [Route] = []
    /// What the resolver answers for a host name.
    package enum NameAnswer: Sendable, Hashable {
        /// These addresses, in this order; none means the name exists without an address.
        case addresses([IPAddress])
        /// The lookup fails with these words.
        case failure(String)
    }

    /// Answers for host names, by lower-cased name; a name not here fails as unknown.
    package var names: [String: NameAnswer] = [:]
    /// What an RFC 7050 DNS64 discovery finds.
    package var dns64Prefixes: [NAT64Prefix] = []
    private var nextIndex = 1

    /// A network with only the loopback interface `lo` (127.0.0.1/8 and ::1/128), up.
    package init() {
        let lo = addInterface(named: "lo", type: .loopback, isPointToPoint: false)
        for (loopback, length) in [("127.0.0.1", 8), ("::1", 128)] {
            if let address = try? IPAddress(loopback) { addAddress(address, prefixLength: length, to: lo) }
        }
    }

    // MARK: - Interfaces

    /// The index of the interface called `name`.
    package func index(of name: String) -> Int? { interfaces.first { $0.name == name }?.index }

    /// Adds an interface, up and with carrier; returns its index.
    @discardableResult
    package mutating func addInterface(
        named name: String, type: NetworkInterface.InterfaceType, isPointToPoint: Bool, linkKind: String? = nil
    ) -> Int {
        let index = nextIndex
        nextIndex += 1
        interfaces.append(Interface(name: name, index: index, type: type, isPointToPoint: isPointToPoint, linkKind: linkKind))
        return index
    }

    /// Removes an interface with its addresses and every route through it.
    package mutating func removeInterface(_ index: Int) {
        interfaces.removeAll { $0.index == index }
        routes.removeAll { $0.interfaceIndex == index }
    }

    /// Takes an interface up or down: down drops every route through it and its IPv6 addresses (Linux's
    /// default `keep_addr_on_down=0`); up brings back the prefix routes of the addresses it kept.
    package mutating func setUp(_ isUp: Bool, _ index: Int) {
        guard let position = interfaces.firstIndex(where: { $0.index == index }), interfaces[position].isUp != isUp else {
            return
        }
        interfaces[position].isUp = isUp
        routes.removeAll { $0.interfaceIndex == index }
        if !isUp && interfaces[position].type != .loopback {
            interfaces[position].addresses.removeAll { $0.address.family == .ipv6 }
        }
        if isUp {
            for (address, length) in interfaces[position].addresses { addPrefixRoute(address, length, index) }
        }
    }

    /// Gives or takes an interface's carrier; its routes stay, as they do on Linux.
    package mutating func setCarrier(_ hasCarrier: Bool, _ index: Int) {
        update(index) { $0.hasCarrier = hasCarrier }
    }

    /// Sets or clears operstate `dormant`.
    package mutating func setDormant(_ isDormant: Bool, _ index: Int) {
        update(index) { $0.isDormant = isDormant }
    }

    package mutating func setNetwork(_ network: NetworkIdentity?, _ index: Int) {
        update(index) { $0.network = network }
    }

    private mutating func update(_ index: Int, _ change: (inout Interface) -> Void) {
        guard let position = interfaces.firstIndex(where: { $0.index == index }) else { return }
        change(&interfaces[position])
    }

    // MARK: - Addresses and routes

    /// Adds an address and, while the interface is up, the route to its prefix.
    package mutating func addAddress(_ address: IPAddress, prefixLength: Int, to index: Int) {
        guard let position = interfaces.firstIndex(where: { $0.index == index }) else { return }
        interfaces[position].addresses.append((address, prefixLength))
        if interfaces[position].isUp { addPrefixRoute(address, prefixLength, index) }
    }

    /// Removes an address and the prefix route it brought.
    package mutating func removeAddress(_ address: IPAddress, from index: Int) {
        guard let position = interfaces.firstIndex(where: { $0.index == index }),
            let removed = interfaces[position].addresses.firstIndex(where: { $0.address == address })
        else { return }
        let length = interfaces[position].addresses.remove(at: removed).prefixLength
        let prefix = IPPrefix(address: address, length: length)
        if let route = routes.firstIndex(where: {
            $0.isPrefixRoute && $0.interfaceIndex == index && $0.destination == prefix
        }) {
            routes.remove(at: route)
        }
    }

    private mutating func addPrefixRoute(_ address: IPAddress, _ length: Int, _ index: Int) {
        guard length < address.bytes.count * 8, interfaces.first(where: { $0.index == index })?.type != .loopback else { return }
        let prefix = IPPrefix(address: address, length: length)
        var route = Route(destination: prefix, interfaceIndex: index, source: address)
        route.isPrefixRoute = true
        routes.append(route)
    }

    /// Adds a route.
    package mutating func addRoute(_ route: Route) { routes.append(route) }

    /// Removes the routes to exactly `prefix` (with `metric`, when given); returns how many there were.
    @discardableResult
    package mutating func removeRoutes(to prefix: IPPrefix, metric: Int? = nil) -> Int {
        let before = routes.count
        routes.removeAll { route in
            route.destination == prefix && (metric == nil || route.metric == metric)
        }
        return before - routes.count
    }

    // MARK: - Answers, as the kernel gives them

    /// The interface that would carry packets to `gateway`: the one whose prefix route holds it.
    package func interfaceReaching(_ gateway: IPAddress) -> Int? {
        guard case .route(let route) = lookupRoute(to: gateway, from: nil, interfaceIndex: nil), route.gateway == nil,
            route.type == .unicast
        else { return nil }
        return route.outputInterface
    }

    /// What `ip route get` would answer.
    func lookupRoute(to destination: IPAddress, from source: IPAddress?, interfaceIndex: Int?) -> RouteAnswer {
        let destination = destination.withoutZone
        let family = destination.family
        let fullLength = UInt8(destination.byteCount * 8)
        // An IPv4 address stays local while its link is down (its local route stays); IPv6 ones are gone then.
        if interfaces.contains(where: {
            ($0.isUp || destination.family == .ipv4) && $0.addresses.contains { $0.address == destination }
        }) {
            return .route(
                NetworkReachabilityCore.Route(
                    family: family, destinationLength: fullLength, table: NetworkReachabilityCore.Route.localTable, type: .local,
                    destination: destination, gateway: nil, preferredSource: destination, outputInterface: index(of: "lo")))
        }
        let candidates = routes.enumerated().filter { _, route in
            route.destination.contains(destination)
                && (interfaceIndex == nil || route.interfaceIndex == interfaceIndex)
        }
        let best = candidates.min { a, b in
            (-a.element.destination.length, a.element.metric, a.offset) < (
                -b.element.destination.length, b.element.metric, b.offset
            )
        }
        guard let route = best?.element else { return .noRoute(.nothingMatched) }
        let type: NetworkReachabilityCore.Route.RouteType =
            switch route.kind {
            case .unicast: .unicast
            case .unreachable: .unreachable
            case .blackhole: .blackhole
            case .prohibit: .prohibit
            }
        let preferred =
            route.source ?? source ?? route.interfaceIndex.flatMap { primaryAddress(on: $0, family: destination.family) }
        return .route(
            NetworkReachabilityCore.Route(
                family: family, destinationLength: UInt8(route.destination.length),
                table: NetworkReachabilityCore.Route.mainTable,
                type: type, destination: route.destination.length == 0 ? nil : route.destination.address,
                gateway: route.gateway, preferredSource: route.kind == .unicast ? preferred : nil,
                outputInterface: route.interfaceIndex))
    }

    /// The interface's first address of `family`, a global one before a link-local one.
    private func primaryAddress(on index: Int, family: IPAddress.Family) -> IPAddress? {
        let addresses = interfaces.first { $0.index == index }?.addresses.map(\.address).filter { $0.family == family } ?? []
        return addresses.first { !$0.isLinkLocal } ?? addresses.first
    }

    /// Every address, as an `RTM_GETADDR` dump lists them.
    var interfaceAddresses: [InterfaceAddress] {
        interfaces.flatMap { interface in
            interface.addresses.map {
                InterfaceAddress(interfaceIndex: interface.index, prefixLength: UInt8($0.prefixLength), address: $0.address)
            }
        }
    }

    /// Every link, as an `RTM_GETLINK` dump lists them.
    var links: [Link] { interfaces.map(Self.link) }

    /// The link an interface is, with the state and operstate Linux would report.
    static func link(_ interface: Interface) -> Link {
        let carries = interface.isUp && interface.hasCarrier
        let state: Link.OperationalState =
            interface.type == .loopback ? .unknown : !carries ? .down : interface.isDormant ? .dormant : .up
        return Link(
            index: interface.index, name: interface.name, isUp: interface.isUp, hasCarrier: carries,
            isPointToPoint: interface.isPointToPoint, isLoopback: interface.type == .loopback, operationalState: state,
            kind: interface.linkKind)
    }
}
