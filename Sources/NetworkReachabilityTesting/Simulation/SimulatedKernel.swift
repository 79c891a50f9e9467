import NetworkReachabilityCore
import NetworkReachabilityPOSIX

/// Answers the evaluation's questions (route lookups, links, addresses, interface kinds, names) from a
/// ``SimulatedNetworkState`` instead of the kernel, so the simulated backend runs the very evaluation the
/// Linux backend runs.
final class SimulatedKernel: RouteQuerying, LinkSource, InterfaceClassifying {
    /// The network; guarded by its lock.
    let state = Locked(SimulatedNetworkState())

    func lookupRoute(to destination: IPAddress, from source: IPAddress?, interfaceIndex: Int?) -> RouteAnswer {
        state.withLock { $0.lookupRoute(to: destination, from: source, interfaceIndex: interfaceIndex) }
    }

    /// The simulated table answers a pinned lookup with routes through that interface only, as the kernel's entry does.
    func lookupRoute(to destination: IPAddress, from source: IPAddress?, outOf interfaceIndex: Int) -> RouteAnswer {
        lookupRoute(to: destination, from: source, interfaceIndex: interfaceIndex)
    }

    /// The simulated table has no multipath routes: the entry is the route a lookup takes.
    func matchedRoute(to destination: IPAddress) -> RouteAnswer {
        lookupRoute(to: destination, from: nil, interfaceIndex: nil)
    }

    func lookupRoutes(_ lookups: [RouteLookup]) -> [RouteAnswer] {
        lookups.map { lookup in
            switch lookup {
            case .path(let destination): lookupRoute(to: destination, from: nil, interfaceIndex: nil)
            case .entry(let destination): matchedRoute(to: destination)
            }
        }
    }

    func lookupRoutes(to destinations: [IPAddress]) -> [RouteAnswer] {
        state.withLock { state in destinations.map { state.lookupRoute(to: $0, from: nil, interfaceIndex: nil) } }
    }

    /// The simulated network has no policy rules: no route for marked packets.
    func markedRoutes(to destination: IPAddress) -> [Route] { [] }

    /// Its one table's default routes of `destination`'s family through each of `interfaces`, as pinned lookups
    /// would find them, with their metrics.
    func defaultRoutes(to destination: IPAddress, outOf interfaces: [Int]) -> [DefaultRoute] {
        let all = IPPrefix.all(destination.family)
        return state.withLock { state in
            interfaces.compactMap { index in
                let defaults = state.routes.filter { $0.destination == all && $0.kind == .unicast && $0.interfaceIndex == index }
                guard let best = defaults.min(by: { $0.metric < $1.metric }) else { return nil }
                let route = Route(
                    family: destination.family, destinationLength: 0, table: Route.mainTable, type: .unicast,
                    destination: nil, gateway: best.gateway, preferredSource: nil, outputInterface: index)
                return DefaultRoute(route: route, metric: UInt32(max(0, best.metric)))
            }
        }
    }

    func addresses() -> [InterfaceAddress] { state.withLock { $0.interfaceAddresses } }

    func linkIndex(named name: String) -> Int? { state.withLock { $0.index(of: name) } }

    func link(index: Int) -> Link? {
        state.withLock { state in state.interfaces.first { $0.index == index }.map(SimulatedNetworkState.link) }
    }

    func allLinks() -> [Link] { state.withLock { $0.links } }

    func interface(for link: Link) -> NetworkInterface {
        let type = state.withLock { state in state.interfaces.first { $0.index == link.index }?.type } ?? .other
        return NetworkInterface(name: link.name, index: link.index, type: type, linkKind: link.kind)
    }

    /// What the resolver answers for `name`: the table's entry, or "Name or service not known" as glibc says.
    func resolve(_ name: String) -> Result<[IPAddress], ResolutionFailure> {
        switch state.withLock({ $0.names[name.lowercased()] }) {
        case .addresses(let addresses)?: .success(addresses)
        case .failure(let message)?: .failure(ResolutionFailure(message: message, isNoAddress: false))
        case nil: .failure(ResolutionFailure(message: "Name or service not known", isNoAddress: false))
        }
    }

    /// The prefixes a DNS64 discovery finds now.
    var dns64Prefixes: [NAT64Prefix] { state.withLock { $0.dns64Prefixes } }
}

/// Resolves names from the simulated network's table at once, on the caller's thread.
struct SimulatedResolver: NameResolving {
    let kernel: SimulatedKernel
    let report: HostResolver.Report

    func resolve(_ name: HostName, timeout: Duration) {
        report(name, HostResolver.Outcome(kernel.resolve(name.name)))
    }
}
