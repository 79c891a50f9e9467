package import CoreMetrics
public import Dispatch
public import Logging
import NetworkReachabilityPOSIX

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
///
/// The initializers are the platform's: `NetworkReachabilityKit` gives `init()`, `init(address:)`,
/// `init(host:resolutionTimeout:logger:)`, `init(url:resolutionTimeout:logger:)`,
/// `init(localAddress:remoteAddress:logger:)`, `init(requiredInterfaceType:logger:)`,
/// `init(prohibitedInterfaceTypes:logger:)`, `init(target:resolutionTimeout:logger:)`, `linkLocal(logger:)` and
/// `default` (its documentation, under Extended Modules); `NetworkReachabilityTesting` the same on a simulated network.
public final class NetworkReachability: Sendable {
    /// The consumers this object added, and why listening last ended on its own.
    private struct Listening {
        var consumers: [(name: String?, consumer: Consumer)] = []
        var failure: ReachabilityError?
        var measuresQuality = false
    }

    // MARK: - Properties

    /// What this object reports on.
    public let target: ReachabilityTarget

    /// How long one resolution of a host target may take before it counts as timed out.
    public let resolutionTimeout: Duration

    /// The default ``resolutionTimeout``: shorter than glibc's own retries, which can take 10 s or more.
    public static let defaultResolutionTimeout = Duration.seconds(5)

    /// The longest ``resolutionTimeout`` accepted: a day.
    public static let maximumResolutionTimeout = Duration.seconds(86_400)

    private let logger: Logger
    private let monitor: ReachabilityMonitor
    // Guarded by its lock; never held while calling the monitor.
    private let listening = Locked(Listening())

    // MARK: - Initialization

    // The public initializers are the platform's: `NetworkReachabilityKit` gives them the system's monitor.

    /// Watches `target` through `monitor`'s backend: tests bind one to a network namespace or a simulated network.
    package convenience init(
        target: ReachabilityTarget, monitor: ReachabilityMonitor,
        resolutionTimeout: Duration = NetworkReachability.defaultResolutionTimeout, logger: Logger
    ) throws(ReachabilityError) {
        guard resolutionTimeout > .zero, resolutionTimeout <= Self.maximumResolutionTimeout else {
            throw .invalidResolutionTimeout(resolutionTimeout)
        }
        try monitor.backend.validate(target)
        self.init(validatedTarget: target, monitor: monitor, resolutionTimeout: resolutionTimeout, logger: logger)
    }

    /// Watches `target`, already checked by `monitor`'s backend.
    package init(
        validatedTarget target: ReachabilityTarget, monitor: ReachabilityMonitor, resolutionTimeout: Duration, logger: Logger
    ) {
        self.target = target
        self.monitor = monitor
        self.resolutionTimeout = resolutionTimeout
        self.logger = logger
    }

    /// The clock this object's timeouts and delays are measured on (waits, the work queue's and the validator's
    /// retries): its monitor's, a test's on a simulated network.
    package var clock: any Clock<Duration> { monitor.clock }

    /// Where what is built on this object (the validator's probe counts) records its metrics: its monitor's factory.
    package var metricsFactory: any MetricsFactory { monitor.metricsFactory }

    /// What each metric family the library records through swift-metrics says, by name: for a backend that shows a
    /// description (Prometheus' `# HELP`), since swift-metrics carries none.
    public static let metricDescriptions: [String: String] = Dictionary(
        uniqueKeysWithValues: MonitorMetrics.Family.allCases.map { ($0.rawValue, $0.help) })

    /// Releasing the object stops its closure listener and notifications (an ``updates`` sequence keeps it alive
    /// while it is iterated).
    deinit {
        let consumers = listening.withLock { listening in
            defer { listening.consumers.removeAll() }
            return listening.consumers
        }
        for (_, consumer) in consumers { monitor.remove(consumer) }
    }

    /// A logger that drops everything: the default, so the library is silent unless asked.
    public static let silentLogger = Logger(label: "NetworkReachability", factory: { _ in SwiftLogNoOpLogHandler() })

    // MARK: - Reading the current state

    /// Evaluates the target now: one kernel round trip for an address or the internet (whose two route lookups, one
    /// per family, go in one request), one per address for a host. An IPv4 address with no route also needs to know
    /// whether NAT64 carries it, which takes the internet's routes: one round trip more, or none when the read before
    /// found no route either (they go along with its own lookup). Blocks on nothing but the kernel: a host answers
    /// from its latest resolution (`unknown` while the first is pending) and is resolved again in the background.
    ///
    /// - Throws: ``ReachabilityError/systemCallFailed(call:errno:)`` when the kernel cannot be asked.
    /// The path names the network its interface is attached to, which costs the kernel two route lookups and a read of
    /// its neighbour table more; ``flags`` and ``status`` do without.
    public func currentSnapshot() throws(ReachabilityError) -> ReachabilitySnapshot {
        monitor.detailed(monitor.backend.identified(try evaluated()), measuringQuality: measuresQuality)
    }

    /// The backend's answer now, before its path is given what only a snapshot needs.
    private func evaluated() throws(ReachabilityError) -> ReachabilitySnapshot {
        try monitor.backend.evaluate(target, resolutionTimeout: resolutionTimeout)
    }

    // MARK: - Link quality

    /// Whether paths from this object carry ``ReachabilityPath/quality``: how good the route's interface is,
    /// measured passively from the host's TCP flows through its gateways (Linux: the kernel's `tcp_info` of every
    /// process's sockets). Off by default, so a process that does not ask reads nothing.
    ///
    /// While a listener or an ``updates`` sequence made after setting it runs, the reader runs, and ``updates`` hears
    /// a change of ``LinkQuality/effectiveType`` (the status listener hears the status only, as ever). A read with
    /// no listener measures the flows open at that moment. Set it before listening starts: listeners already running
    /// keep what they had.
    public var measuresQuality: Bool {
        get { listening.withLock { $0.measuresQuality } }
        set { listening.withLock { $0.measuresQuality = newValue } }
    }

    /// The quality of `interface` as the running reader estimates it now (its figures move with every sample, where
    /// ``updates`` hears only a change of class), with no read of the kernel; `nil` unless this object measures quality
    /// and a listener of the process keeps the reader running. What `reach serve` shows on `/status` and in scrapes.
    package func measuredQuality(of interface: NetworkInterface) -> LinkQuality? {
        measuresQuality ? monitor.measuredQuality(of: interface) : nil
    }

    /// What the quality reader has counted: its reads of the kernel and the samples they gave.
    public var qualityStatistics: QualityStatistics { monitor.qualityStatistics }

    /// The current flags, or `nil` when the kernel could not be asked (the error is logged).
    public var flags: ReachabilityFlags? { logged(evaluated)?.flags }

    /// The current status; `unknown` when the kernel could not be asked or a host's first resolution is pending.
    public var status: NetworkReachabilityStatus { logged(evaluated)?.status ?? .unknown }

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
    public var isReachableOnCellular: Bool { status.isReachableOnCellular }

    /// Whether the target is reachable now over a cellular link: Alamofire 4's name.
    @available(*, deprecated, renamed: "isReachableOnCellular")
    public var isReachableOnWWAN: Bool { isReachableOnCellular }

    /// Whether the target is reachable now over a link that is not cellular.
    public var isReachableOnEthernetOrWiFi: Bool { status.isReachableOnEthernetOrWiFi }

    // MARK: - Listening

    /// Calls `listener` on `queue` with the status once the target is first evaluated, then whenever the status
    /// changes: Alamofire 5's rule, so unplugging a cable is one `.notReachable`, however the flags change beneath
    /// it. Replaces an earlier listener. (``updates`` hears every change of flags or path.)
    ///
    /// On Linux the main queue runs only under `dispatchMain()`, a running `RunLoop` or an `async` `main`; in a
    /// command-line tool or a server that runs none of them, pass a queue of your own:
    /// `startListening(onQueue: DispatchQueue(label: "net"))`.
    ///
    /// Stopping from inside the listener is safe; no call arrives after ``stopListening()`` returns
    /// on the listener's queue.
    ///
    /// - Returns: whether listening started; `false` when the kernel subscription could not be opened.
    @discardableResult
    public func startListening(
        onQueue queue: DispatchQueue = .main, onUpdatePerforming listener: @escaping Listener
    ) -> Bool {
        addLoggedConsumer(named: Self.listenerName, rule: .status, queue: queue) { listener($0.status) }
    }

    /// Calls `listener` on the main actor with the status once the target is first evaluated, then whenever the
    /// status changes, as ``startListening(onQueue:onUpdatePerforming:)`` does on the main queue: for Swift 6 UI code,
    /// which may then touch main-actor state without `MainActor.assumeIsolated`.
    ///
    /// - Returns: whether listening started; `false` when the kernel subscription could not be opened.
    @discardableResult
    public func startListening(onMainActor listener: @escaping @MainActor @Sendable (NetworkReachabilityStatus) -> Void) -> Bool {
        // The main queue's blocks run on the main actor's executor: the main thread.
        addLoggedConsumer(named: Self.listenerName, rule: .status, queue: .main) { snapshot in
            MainActor.assumeIsolated { listener(snapshot.status) }
        }
    }

    /// A closure that hears the status: Alamofire's name for it.
    public typealias Listener = @Sendable (NetworkReachabilityStatus) -> Void

    /// The status, nested as Alamofire nests it (`NetworkReachabilityManager.NetworkReachabilityStatus`), so that
    /// ported code naming it, or its `ConnectionType`, compiles with only the type's name changed.
    public typealias NetworkReachabilityStatus = NetworkReachabilityCore.NetworkReachabilityStatus

    /// Stops the closure listener. The kernel subscription closes when no object in the process listens.
    ///
    /// A status already on its way to the listener's queue when this is called is dropped, not delivered: no call
    /// arrives once this returns, on the listener's queue (Alamofire's would still run one already queued). Read
    /// ``status`` for the state at that moment.
    public func stopListening() {
        removeConsumer(named: Self.listenerName)
    }

    private static let listenerName = "listener"

    /// The target's snapshots: the first as soon as it is evaluated, then one per change of flags or path.
    ///
    /// Listening starts when the sequence is made and ends when the iterating task is cancelled, the loop ends, or
    /// the sequence is dropped. While it lives it keeps this object alive, so
    /// `for await snapshot in NetworkReachability().updates` listens for as long as the loop runs.
    ///
    /// A reader that falls behind loses the oldest snapshots, never the newest: at most ``updatesBufferLimit`` wait
    /// for it, as a path monitor's reader wants the path as it is now, not a backlog.
    public var updates: AsyncStream<ReachabilitySnapshot> {
        AsyncStream(bufferingPolicy: .bufferingNewest(Self.updatesBufferLimit)) { continuation in
            do {
                let consumer = try addConsumer(rule: .snapshot) {
                    continuation.yield($0)
                } finish: {
                    continuation.finish()
                }
                // Holds this object until the sequence ends: the stream's end, not its source's release, stops it.
                continuation.onTermination = { _ in self.removeConsumer(consumer) }
            } catch {
                logger.error("starting to listen to \(target) failed: \(error)")
                continuation.finish()
            }
        }
    }

    /// How many snapshots ``updates`` keeps for a reader that has not taken them; beyond, the oldest are dropped.
    public static let updatesBufferLimit = 64

    /// Why listening ended on its own, if it did: the kernel subscription failed and could not be reopened, or
    /// the named network namespace it lived in was deleted (``ReachabilityError/networkNamespaceDeleted(_:)``).
    ///
    /// Then every ``updates`` sequence has ended and listeners hear nothing more; starting to listen again
    /// tries a new subscription and clears this.
    public var listeningFailure: ReachabilityError? { listening.withLock { $0.failure } }

    /// What the process's kernel subscription has counted: malformed and foreign messages, resyncs.
    public var monitorStatistics: MonitorStatistics { monitor.statistics }

    // MARK: - Consumers

    /// Adds a consumer of the target's snapshots: the one way every style of listening is built (the closure
    /// listener, ``updates``, the notification bridge, waits, validation, `reach watch`).
    ///
    /// It hears the first snapshot as soon as the target is evaluated, then each one `rule` calls new, on `queue`;
    /// without a queue, straight from the monitor's thread, where `deliver` must return quickly and never block.
    ///
    /// - Parameters:
    ///   - name: where at most one consumer lives; adding under a taken name replaces that consumer.
    ///   - finish: called once when the consumer stops: removed, or listening ended on its own (then
    ///     ``listeningFailure`` says why).
    /// - Throws: when the subscription cannot be opened.
    @discardableResult
    package func addConsumer(
        named name: String? = nil, rule: Consumer.Rule, queue: DispatchQueue? = nil, measuresQuality: Bool? = nil,
        deliver: @escaping @Sendable (ReachabilitySnapshot) -> Void, finish: @escaping @Sendable () -> Void = {}
    ) throws(ReachabilityError) -> Consumer {
        if let name { removeConsumer(named: name) }
        let consumer = Consumer(
            target: target, rule: rule, queue: queue, measuresQuality: measuresQuality ?? self.measuresQuality,
            deliver: deliver
        ) { [listening] error in
            if let error {
                listening.withLock { listening in
                    listening.failure = error
                    listening.consumers.removeAll { !$0.consumer.isListening }
                }
            }
            finish()
        }
        listening.withLock { listening in
            listening.failure = nil
            listening.consumers.append((name, consumer))
        }
        do {
            try monitor.add(consumer, resolutionTimeout: resolutionTimeout, logger: logger)
        } catch {
            listening.withLock { $0.consumers.removeAll { $0.consumer === consumer } }
            throw error
        }
        return consumer
    }

    /// Removes a consumer this object added; safe from any thread, a delivery's included.
    package func removeConsumer(_ consumer: Consumer) {
        listening.withLock { $0.consumers.removeAll { $0.consumer === consumer } }
        monitor.remove(consumer)
    }

    /// Removes the consumer named `name`, if there is one.
    package func removeConsumer(named name: String) {
        let named = listening.withLock { $0.consumers.first { $0.name == name }?.consumer }
        if let named { removeConsumer(named) }
    }

    /// Adds a consumer that hears what `rule` calls new on `queue` under `name`; logs a failure to start.
    package func addLoggedConsumer(
        named name: String, rule: Consumer.Rule, queue: DispatchQueue,
        deliver: @escaping @Sendable (ReachabilitySnapshot) -> Void
    ) -> Bool {
        do {
            try addConsumer(named: name, rule: rule, queue: queue, deliver: deliver)
            return true
        } catch {
            logger.error("starting to listen to \(target) failed: \(error)")
            return false
        }
    }
}
