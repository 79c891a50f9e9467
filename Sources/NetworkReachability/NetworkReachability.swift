import Dispatch
import Logging

/// Tells, live, whether the network can carry traffic to a target and over what kind of link.
///
/// The Linux counterpart of Apple's `SCNetworkReachability` and Alamofire's `NetworkReachabilityManager`,
/// built on the kernel's own answers: every state is a route lookup (`RTM_GETROUTE`) plus the output
/// link's state, and changes arrive through one rtnetlink subscription per process.
///
/// ```swift
/// let reachability = NetworkReachability()            // the internet
/// reachability.startListening { status in print(status) }
/// ```
///
/// Reachable means a packet sent now can leave this host toward the target; it does not promise an
/// answer. Never skip a request because of it: send it, and use reachability to decide when to retry.
public final class NetworkReachability: Sendable {
    /// The slot of the closure listener among the hub's consumers.
    static let listenerSlot = "listener"

    // MARK: - Properties

    /// What this object reports on.
    public let target: ReachabilityTarget

    private let backend: any RoutingBackend
    private let hub: ListenerHub
    private let logger: Logger

    // MARK: - Initialization

    /// Watches `target`.
    ///
    /// - Parameters:
    ///   - target: the internet, the link-local network, an address or an address pair.
    ///   - logger: where to log; nothing is logged unless you pass a logger.
    /// - Throws: ``ReachabilityError/unknownZone(_:)`` when an IPv6 zone names no interface,
    ///   ``ReachabilityError/localAddressNotOwned(_:)`` or ``ReachabilityError/familyMismatch(local:remote:)``
    ///   for a bad address pair. The internet and link-local targets never throw.
    public convenience init(target: ReachabilityTarget, logger: Logger = NetworkReachability.silentLogger)
        throws(ReachabilityError)
    {
        try self.init(target: target, backend: LinuxRoutingBackend.system, logger: logger)
    }

    /// Watches the internet: a default or split-default route, IPv4 or IPv6 (Apple's `0.0.0.0`).
    public convenience init(logger: Logger = NetworkReachability.silentLogger) {
        self.init(validatedTarget: .internet, backend: LinuxRoutingBackend.system, logger: logger)
    }

    /// Watches one IPv4 or IPv6 address, such as `192.0.2.1` or `fe80::1%eth0`.
    ///
    /// - Throws: ``ReachabilityError/invalidAddress(_:reason:)`` or ``ReachabilityError/unknownZone(_:)``.
    public convenience init(address: String, logger: Logger = NetworkReachability.silentLogger) throws(ReachabilityError) {
        try self.init(target: .address(IPAddress(address)), logger: logger)
    }

    /// Watches `remoteAddress` as reached from `localAddress`, which must be one of this host's addresses.
    ///
    /// - Throws: ``ReachabilityError/invalidAddress(_:reason:)``, ``ReachabilityError/localAddressNotOwned(_:)``
    ///   or ``ReachabilityError/familyMismatch(local:remote:)``.
    public convenience init(
        localAddress: String, remoteAddress: String, logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        try self.init(target: .addressPair(local: IPAddress(localAddress), remote: IPAddress(remoteAddress)), logger: logger)
    }

    /// Watches the link-local network (Apple's `169.254.0.0`): an up, carrier-holding, non-loopback
    /// interface with an IPv4 `169.254/16` or IPv6 `fe80::/10` address.
    public static func linkLocal(logger: Logger = NetworkReachability.silentLogger) -> NetworkReachability {
        NetworkReachability(validatedTarget: .linkLocal, backend: LinuxRoutingBackend.system, logger: logger)
    }

    /// Watches `target` through `backend`: tests bind a backend to a network namespace.
    package convenience init(target: ReachabilityTarget, backend: any RoutingBackend, logger: Logger) throws(ReachabilityError) {
        try backend.validate(target)
        self.init(validatedTarget: target, backend: backend, logger: logger)
    }

    private init(validatedTarget target: ReachabilityTarget, backend: any RoutingBackend, logger: Logger) {
        self.target = target
        self.backend = backend
        self.logger = logger
        hub = ListenerHub(target: target, monitor: backend.monitor)
    }

    /// Releasing the object stops every way of listening and ends its sequences.
    deinit {
        hub.removeAll()
    }

    /// A logger that drops everything: the default, so the library is silent unless asked.
    public static let silentLogger = Logger(label: "NetworkReachability", factory: { _ in SwiftLogNoOpLogHandler() })

    // MARK: - Reading the current state

    /// Evaluates the target now: one kernel route lookup (two for the internet, one per family) and,
    /// when nothing is listening in this process, one link query. Blocks on nothing but the kernel.
    ///
    /// - Throws: ``ReachabilityError/systemCallFailed(call:errno:)`` when the kernel cannot be asked.
    public func currentSnapshot() throws(ReachabilityError) -> ReachabilitySnapshot {
        try backend.evaluate(target)
    }

    /// The current flags, or `nil` when the kernel could not be asked (the error is logged).
    public var flags: ReachabilityFlags? {
        do {
            return try currentSnapshot().flags
        } catch {
            logger.warning("reading reachability of \(target) failed: \(error)")
            return nil
        }
    }

    /// The current status; `unknown` when the kernel could not be asked.
    public var status: NetworkReachabilityStatus { flags.map(NetworkReachabilityStatus.init) ?? .unknown }

    /// Whether the target is reachable now over any link.
    public var isReachable: Bool { status.isReachable }

    /// Whether the target is reachable now over a cellular link.
    public var isReachableOnWWAN: Bool { status.isReachableOnWWAN }

    /// Whether the target is reachable now over a link that is not cellular.
    public var isReachableOnEthernetOrWiFi: Bool { status.isReachableOnEthernetOrWiFi }

    // MARK: - Listening

    /// Calls `listener` on `queue` with the status once the target is first evaluated, then whenever
    /// the flags change (never twice for the same flags). Replaces an earlier listener.
    ///
    /// Stopping from inside the listener is safe; no call arrives after ``stopListening()`` returns
    /// on the listener's queue.
    ///
    /// - Returns: whether listening started; `false` when the kernel subscription could not be opened.
    @discardableResult
    public func startListening(
        onQueue queue: DispatchQueue = .main,
        onUpdatePerforming listener: @escaping @Sendable (NetworkReachabilityStatus) -> Void
    ) -> Bool {
        addConsumer(slot: Self.listenerSlot, onQueue: queue) { snapshot in listener(snapshot.status) }
    }

    /// Stops the closure listener. The kernel subscription closes when no object in the process listens.
    public func stopListening() {
        hub.remove(slot: Self.listenerSlot)
    }

    /// The target's snapshots: the first as soon as it is evaluated, then one per change of flags or path.
    ///
    /// Listening starts when the sequence is made and ends when the iterating task is cancelled or this
    /// object is released.
    public var updates: AsyncStream<ReachabilitySnapshot> {
        AsyncStream { continuation in
            do {
                let id = try hub.add(deduplication: .snapshot) { _, snapshot in
                    continuation.yield(snapshot)
                } finish: {
                    continuation.finish()
                }
                continuation.onTermination = { [weak hub] _ in hub?.remove(id) }
            } catch {
                logger.error("starting to listen to \(target) failed: \(error)")
                continuation.finish()
            }
        }
    }

    /// Adds a consumer in a named slot, for bridges in other targets (the `NotificationCenter` one).
    package func addConsumer(
        slot: String, onQueue queue: DispatchQueue, deliver: @escaping @Sendable (ReachabilitySnapshot) -> Void
    ) -> Bool {
        do {
            try hub.add(slot: slot, deduplication: .flags) { [hub] id, snapshot in
                queue.async {
                    guard hub.contains(id) else { return }
                    deliver(snapshot)
                }
            }
            return true
        } catch {
            logger.error("starting to listen to \(target) failed: \(error)")
            return false
        }
    }

    /// Removes the consumer in `slot`.
    package func removeConsumer(slot: String) {
        hub.remove(slot: slot)
    }

    /// What the process's kernel subscription has counted: malformed and foreign messages, resyncs.
    public var monitorStatistics: MonitorStatistics { backend.monitor.statistics }
}
