import NetworkReachabilityPOSIX
/// What the network provisions beside its routes: NAT64 prefixes (router-advertised PREF64 and RFC 7050
/// DNS64), advertised DNS servers and the captive-portal URI.
///
/// A running monitor feeds it the router advertisements it hears and lets lifetimes lapse. DNS64 discovery
/// runs in the background whenever an evaluation finds an IPv6-only network other than the one last asked
/// about (or the resolver configuration changed); evaluations never wait for it.
package final class ProvisioningDirectory: Sendable {
    /// Which IPv6-only network a DNS64 answer belongs to: the output interface and gateway of its IPv6 route.
    struct Network: Hashable {
        var interfaceIndex: Int?
        var gateway: IPAddress?
    }

    /// What an evaluation of the internet, or of an IPv4 address through NAT64, may use now.
    struct Provisions: Equatable {
        var nat64Prefixes: [DiscoveredNAT64Prefix] = []
        var dnsServers: [IPAddress] = []
        var captivePortal: String?
        /// A DNS64 discovery for this network runs and nothing is known yet.
        var isDiscovering = false
    }

    /// Starts a discovery with a timeout; calls back once (the platform's `NAT64Discovery.discover`, or a test's).
    package typealias Discover = @Sendable (Duration, @escaping @Sendable ([NAT64Prefix]) -> Void) -> Void

    private struct State {
        var ledgers: [Int: AdvertisementLedger] = [:]
        /// The IPv6-only network last evaluated; `nil` when the network is not IPv6-only.
        var network: Network?
        var dns64: [NAT64Prefix] = []
        /// Bumped by every discovery started, so a late answer for an older network is ignored.
        var generation = 0
        var isDiscovering = false
    }

    // Guarded by its lock; never held while discovering or calling the change handler.
    private let state = Locked(State())
    /// When advertisements were last solicited (monotonic milliseconds).
    private let lastSolicitation = Locked<Int?>(nil)
    /// Routers are asked at most this often, however often subscriptions open (RFC 4861 §6.3.7 asks hosts
    /// for a handful of solicitations, not a stream).
    static let solicitationInterval = 60_000
    private let changeHandler = Locked<ChangeHandler<Void>?>(nil)
    private let discover: Discover
    private let timeout: Duration

    /// - Parameter discover: the platform's DNS64 discovery, or a test's.
    package init(timeout: Duration = NetworkReachability.defaultResolutionTimeout, discover: @escaping Discover) {
        self.timeout = timeout
        self.discover = discover
    }

    /// Calls `handler` when a DNS64 discovery ends (from a background thread).
    package func onChange(_ handler: @escaping @Sendable () -> Void) {
        changeHandler.withLock { $0 = ChangeHandler(handler) }
    }

    // MARK: - Router advertisements (the monitor's thread)

    /// Records an advertisement heard at `now` (monotonic milliseconds); returns whether anything in force changed.
    package func record(_ advertisement: RouterAdvertisement, at now: Int) -> Bool {
        state.withLock { state in
            state.ledgers[advertisement.interfaceIndex, default: AdvertisementLedger()].apply(advertisement, at: now)
        }
    }

    /// Forgets what an interface's router advertised (it was deleted); returns whether anything was in force.
    package func forgetInterface(_ index: Int) -> Bool {
        state.withLock { state in
            guard let removed = state.ledgers.removeValue(forKey: index) else { return false }
            return removed.summary != RouterAdvertisementSummary(folding: [])
        }
    }

    /// Lets lifetimes lapse at `now`; returns whether anything did.
    package func expire(at now: Int) -> Bool {
        state.withLock { state in
            var changed = false
            for index in state.ledgers.keys where state.ledgers[index]?.expire(at: now) == true { changed = true }
            return changed
        }
    }

    /// Whether to solicit advertisements at `now`: true at most once per ``solicitationInterval``.
    package func claimSolicitation(at now: Int) -> Bool {
        lastSolicitation.withLock { last in
            guard last.map({ now - $0 >= Self.solicitationInterval }) ?? true else { return false }
            last = now
            return true
        }
    }

    /// The earliest moment a lifetime lapses, if any will.
    package var nextDeadline: Int? { state.withLock { $0.ledgers.values.compactMap(\.nextDeadline).min() } }

    // MARK: - Reading

    /// What is in force for a path whose IPv6 route leaves through `interfaceIndex`.
    ///
    /// - Parameter ipv6OnlyNetwork: the IPv6-only network the path is on, `nil` when it is not IPv6-only.
    ///   A network other than the last one starts a DNS64 discovery; its answer arrives through ``onChange(_:)``.
    func provisions(onInterface interfaceIndex: Int?, ipv6OnlyNetwork network: Network?) -> Provisions {
        let (provisions, generation): (Provisions, Int?) = state.withLock { state in
            var started: Int?
            if state.network != network {
                state.network = network
                state.generation += 1
                if network == nil {
                    state.dns64 = []
                    state.isDiscovering = false
                } else {
                    // The previous network's answer stays until this one's arrives: usually the same DNS64.
                    state.isDiscovering = true
                    started = state.generation
                }
            }
            var provisions = Provisions()
            if let summary = interfaceIndex.flatMap({ state.ledgers[$0]?.summary }) {
                provisions.nat64Prefixes = summary.nat64Prefixes.map {
                    DiscoveredNAT64Prefix(prefix: $0.prefix, source: .routerAdvertisement, lifetime: $0.lifetime)
                }
                provisions.dnsServers = summary.dnsServers
                provisions.captivePortal = summary.captivePortal
            }
            provisions.nat64Prefixes += state.dns64.map { DiscoveredNAT64Prefix(prefix: $0, source: .dns64) }
            provisions.isDiscovering = state.isDiscovering && state.dns64.isEmpty
            return (provisions, started)
        }
        if let generation { startDiscovery(generation) }
        return provisions
    }

    /// Asks DNS64 again on the current IPv6-only network: the resolver configuration changed.
    package func rediscover() {
        let generation: Int? = state.withLock { state in
            guard state.network != nil else { return nil }
            state.generation += 1
            state.isDiscovering = true
            return state.generation
        }
        if let generation { startDiscovery(generation) }
    }

    private func startDiscovery(_ generation: Int) {
        discover(timeout) { [weak self] prefixes in self?.finishDiscovery(generation, prefixes) }
    }

    private func finishDiscovery(_ generation: Int, _ prefixes: [NAT64Prefix]) {
        let current: Bool = state.withLock { state in
            guard state.generation == generation else { return false }
            state.dns64 = prefixes
            state.isDiscovering = false
            return true
        }
        if current, let handler = changeHandler.withLock({ $0 }) { handler.call(()) }
    }
}
