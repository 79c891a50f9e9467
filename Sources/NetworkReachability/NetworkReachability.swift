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
    public var target: ReachabilityTarget { hub.target }

    /// How long one resolution of a host target may take before it counts as timed out.
    public var resolutionTimeout: Duration { hub.resolutionTimeout }

    /// The default ``resolutionTimeout``: shorter than glibc's own retries, which can take 10 s or more.
    public static let defaultResolutionTimeout = Duration.seconds(5)

    /// The longest ``resolutionTimeout`` accepted: a day.
    public static let maximumResolutionTimeout = Duration.seconds(86_400)

    private let backend: any RoutingBackend
    /// Holds the target, timeout and logger for both: kept once, as 10,000 objects may listen at a time.
    private let hub: ListenerHub
    private var logger: Logger { hub.logger }

    // MARK: - Initialization

    /// Watches `target`.
    ///
    /// - Parameters:
    ///   - target: the internet, the link-local network, an address, an address pair or a host.
    ///   - resolutionTimeout: for a host, how long one resolution may take before it counts as timed out.
    ///   - logger: where to log; nothing is logged unless you pass a logger.
    /// - Throws: ``ReachabilityError/unknownZone(_:)`` when an IPv6 zone names no interface,
    ///   ``ReachabilityError/localAddressNotOwned(_:)`` or ``ReachabilityError/familyMismatch(local:remote:)``
    ///   for a bad address pair; ``ReachabilityError/invalidResolutionTimeout(_:)`` for a timeout not above zero
    ///   or over ``maximumResolutionTimeout``. The internet and link-local targets never throw otherwise.
    public convenience init(
        target: ReachabilityTarget, resolutionTimeout: Duration = NetworkReachability.defaultResolutionTimeout,
        logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        try self.init(target: target, backend: LinuxRoutingBackend.system, resolutionTimeout: resolutionTimeout, logger: logger)
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

    /// Watches a named host, as Apple's `reachabilityWithHostName` does, without ever blocking the caller.
    ///
    /// The name is resolved off the caller's thread with `getaddrinfo` (so `/etc/hosts`, nsswitch and the
    /// system's DNS apply), and again whenever the network or the resolver configuration changes. Until the first
    /// resolution ends the status is `unknown`; then the host is reachable when any of its addresses is. A name
    /// that does not resolve is `notReachable`, and the path's ``ReachabilityPath/host`` says why.
    /// An IP literal is watched as an address, without DNS.
    ///
    /// - Parameters:
    ///   - host: a host name (internationalized names are accepted) or an IP literal.
    ///   - resolutionTimeout: how long one resolution may take before it counts as timed out.
    /// - Throws: ``ReachabilityError/invalidHostName(_:reason:)`` (empty, over 253 octets, a label over 63,
    ///   characters no host name can hold), an address error for a bad literal, or
    ///   ``ReachabilityError/invalidResolutionTimeout(_:)``.
    public convenience init(
        host: String, resolutionTimeout: Duration = NetworkReachability.defaultResolutionTimeout,
        logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        try self.init(
            target: ReachabilityTarget(hostOrAddress: host), backend: LinuxRoutingBackend.system,
            resolutionTimeout: resolutionTimeout, logger: logger)
    }

    /// Watches the link-local network (Apple's `169.254.0.0`): an up, carrier-holding, non-loopback
    /// interface with an IPv4 `169.254/16` or IPv6 `fe80::/10` address.
    public static func linkLocal(logger: Logger = NetworkReachability.silentLogger) -> NetworkReachability {
        NetworkReachability(validatedTarget: .linkLocal, backend: LinuxRoutingBackend.system, logger: logger)
    }

    /// Watches `target` through `backend`: tests bind a backend to a network namespace.
    package convenience init(
        target: ReachabilityTarget, backend: any RoutingBackend,
        resolutionTimeout: Duration = NetworkReachability.defaultResolutionTimeout, logger: Logger
    ) throws(ReachabilityError) {
        guard resolutionTimeout > .zero, resolutionTimeout <= Self.maximumResolutionTimeout else {
            throw .invalidResolutionTimeout(resolutionTimeout)
        }
        try backend.validate(target)
        self.init(validatedTarget: target, backend: backend, resolutionTimeout: resolutionTimeout, logger: logger)
    }

    private init(
        validatedTarget target: ReachabilityTarget, backend: any RoutingBackend,
        resolutionTimeout: Duration = NetworkReachability.defaultResolutionTimeout, logger: Logger
    ) {
        self.backend = backend
        hub = ListenerHub(target: target, resolutionTimeout: resolutionTimeout, logger: logger, monitor: backend.monitor)
    }

    /// Releasing the object stops every way of listening and ends its sequences.
    deinit {
        hub.removeAll()
    }

    /// A logger that drops everything: the default, so the library is silent unless asked.
    public static let silentLogger = Logger(label: "NetworkReachability", factory: { _ in SwiftLogNoOpLogHandler() })

    // MARK: - Reading the current state

    /// Evaluates the target now, in one kernel round trip for an address or the internet (whose two route
    /// lookups, one per family, go in one request) and one per address for a host. An IPv4 address with no route
    /// also needs to know whether NAT64 carries it, which rests on the internet's routes: once worked out, that is
    /// kept until the kernel tells of a change or the network's provisions change, and such a read sends its own
    /// lookup alone (with its synthesized address, where NAT64 carries it). After a change the internet's routes go
    /// in the same request while the previous IPv4 read found no route either, else in a second one. Blocks on
    /// nothing but the kernel: a host answers from its latest resolution (`unknown` while the first is pending)
    /// and is resolved again in the background.
    ///
    /// - Throws: ``ReachabilityError/systemCallFailed(call:errno:)`` when the kernel cannot be asked.
    public func currentSnapshot() throws(ReachabilityError) -> ReachabilitySnapshot {
        try backend.evaluate(target, resolutionTimeout: resolutionTimeout)
    }

    /// The current flags, or `nil` when the kernel could not be asked (the error is logged).
    public var flags: ReachabilityFlags? {
        logged { () throws(ReachabilityError) in try backend.flags(of: target, resolutionTimeout: resolutionTimeout) }
    }

    /// The current status; `unknown` when the kernel could not be asked or a host's first resolution is pending.
    public var status: NetworkReachabilityStatus { logged(currentSnapshot)?.status ?? .unknown }

    private func logged<Value>(_ read: () throws(ReachabilityError) -> Value) -> Value? {
        do {
            return try read()
        } catch {
            logger.warning("reading reachability of \(target) failed: \(error)")
            return nil
        }
    }

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
        add(slot: Self.listenerSlot, onQueue: queue, handler: .status(listener))
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
                let id = try hub.add(
                    deduplication: .snapshot, handler: .snapshot { snapshot in continuation.yield(snapshot) },
                    finish: { continuation.finish() })
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
        add(slot: slot, onQueue: queue, handler: .snapshot(deliver))
    }

    /// Adds a consumer that hears each change of flags on `queue`, in `slot`; logs a failure to start.
    private func add(slot: String, onQueue queue: DispatchQueue, handler: ListenerHub.Handler) -> Bool {
        do {
            try hub.add(slot: slot, deduplication: .flags, queue: queue, handler: handler)
            return true
        } catch {
            logger.error("starting to listen to \(target) failed: \(error)")
            return false
        }
    }

    /// Delivers every snapshot whose flags or path changed straight from the monitor's thread, and calls
    /// `finish` once if listening ends on its own (see ``listeningFailure``): no thread hop and no other thread
    /// woken, for `reach watch`. `deliver` must return quickly and must not stop listening.
    ///
    /// - Throws: when the subscription cannot be opened.
    package func addImmediateConsumer(
        slot: String, deliver: @escaping @Sendable (ReachabilitySnapshot) -> Void, finish: @escaping @Sendable () -> Void
    ) throws(ReachabilityError) {
        try hub.add(slot: slot, deduplication: .snapshot, handler: .snapshot(deliver), finish: finish)
    }

    /// Removes the consumer in `slot`.
    package func removeConsumer(slot: String) {
        hub.remove(slot: slot)
    }

    /// Adds a consumer that hears, on the monitor's thread, the first snapshot and then each one whose flags
    /// (or, with `everyPathChange`, path) changed, and `finish` once when it is removed or listening ends on its
    /// own: for waits, work queues and validation. `deliver` must return quickly. Returns the id for
    /// ``stopObserving(_:)``.
    package func observe(
        everyPathChange: Bool = false, deliver: @escaping @Sendable (ReachabilitySnapshot) -> Void,
        finish: @escaping @Sendable () -> Void
    ) throws(ReachabilityError) -> UInt64 {
        try hub.add(deduplication: everyPathChange ? .snapshot : .flags, handler: .snapshot(deliver), finish: finish)
    }

    /// Removes a consumer added by ``observe(everyPathChange:deliver:finish:)``; safe from any thread, a
    /// delivery's included.
    package func stopObserving(_ id: UInt64) {
        hub.remove(id)
    }

    /// What the process's kernel subscription has counted: malformed and foreign messages, resyncs.
    public var monitorStatistics: MonitorStatistics { backend.monitor.statistics }

    /// Why listening ended on its own, if it did: the kernel subscription failed and could not be reopened, or
    /// the named network namespace it lived in was deleted (``ReachabilityError/networkNamespaceDeleted(_:)``).
    ///
    /// Then every ``updates`` sequence has ended and listeners hear nothing more; starting to listen again
    /// tries a new subscription and clears this.
    public var listeningFailure: ReachabilityError? { hub.failure }
}
