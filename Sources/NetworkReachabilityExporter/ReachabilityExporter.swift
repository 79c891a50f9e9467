import Dispatch
public import NIOCore
@_exported import NetworkReachabilityCore
@_exported import NetworkReachabilityValidationCore
public import Prometheus

/// Publishes targets' reachability as Prometheus series in a registry of yours: the series `reach serve` exports,
/// for a server that serves its own `/metrics`.
///
/// ```swift
/// let registry = PrometheusCollectorRegistry()            // the one your /metrics emits
/// let exporter = try ReachabilityExporter(
///     targets: [("internet", NetworkReachability()), ("api", try NetworkReachability(host: "api.example.com"))],
///     registry: registry, eventLoop: group.next())
/// ```
///
/// Each target gets `reach_target_reachable{target}`, `_status`, `_flags`, `_info`, `_last_change_timestamp_seconds`,
/// the link's details where known, and with a validator `_validation`; the label is the name you give. Changes are
/// shown on `eventLoop`, latest wins, at most every 100 ms however fast the routes churn, so the work is bounded by the
/// number of targets, never by the number of changes.
public final class ReachabilityExporter: Sendable {
    package let served: ServedTargets
    private let targets: [NetworkReachability]
    private let consumers: [Consumer]
    private let validator: ConnectivityValidator?

    /// Every flag but `ReachabilityFlags.appleOnly`: the flags a target's series are served for by default.
    public static let defaultFlagSeries = ReachabilityFlags(rawValue: ReachabilityFlags.named.reduce(0) { $0 | $1.flag.rawValue })
        .subtracting(.appleOnly)

    /// Starts publishing `targets`.
    ///
    /// - Parameters:
    ///   - targets: each target's name (its series' `target` label, and the JSON's `target`) and what is watched.
    ///   - validator: whose outcomes go with the first target that is the internet, as `_validation`; it is closed
    ///     with the exporter.
    ///   - registry: where the series are registered.
    ///   - eventLoop: where the series are set; `status()` runs there too.
    ///   - listeningEnded: called with a target whose listening ended for good (its `NetworkReachability.listeningFailure`
    ///     says why); its series keep their last values.
    ///   - flagSeries: the flags that get a `reach_target_flags` series; by default all but
    ///     `ReachabilityFlags.appleOnly`, which are never set here and would be two series of 0 a target.
    /// - Throws: the kernel subscription's error when it cannot be opened.
    public init(
        targets: [(name: String, reachability: NetworkReachability)], validator: ConnectivityValidator? = nil,
        registry: PrometheusCollectorRegistry, eventLoop: any EventLoop,
        listeningEnded: @escaping @Sendable (NetworkReachability) -> Void = { _ in },
        flagSeries: ReachabilityFlags = ReachabilityExporter.defaultFlagSeries
    ) throws(ReachabilityError) {
        let validated = validator == nil ? nil : targets.firstIndex { $0.reachability.target.isInternet }
        let reachabilities = targets.map(\.reachability)
        let served = ServedTargets(
            targets.enumerated().map { ($1.name, $0 == validated) }, registry: registry, eventLoop: eventLoop,
            flagSeries: flagSeries, quality: { index, interface in reachabilities[index].measuredQuality(of: interface) })
        var consumers: [Consumer] = []
        for (index, (_, reachability)) in targets.enumerated() {
            consumers.append(
                try reachability.addConsumer(
                    rule: .snapshot, deliver: { snapshot in served.receive(snapshot, forTarget: index) },
                    finish: { listeningEnded(reachability) }))
        }
        if let validator, let validated {
            validator.startListening(onQueue: DispatchQueue(label: "reach.exporter.validation")) { outcome in
                served.receive(outcome, forTarget: validated)
            }
        }
        self.served = served
        self.targets = targets.map(\.reachability)
        self.consumers = consumers
        self.validator = validator
    }

    /// Succeeds once every target's first state is in the registry.
    public var ready: EventLoopFuture<Void> { served.allShown }

    /// Every target's last state as a JSON array, in the order given: `/status`'s answer, each element the object
    /// `reach status --json` prints.
    public func status() -> EventLoopFuture<String> {
        served.eventLoop.submit { self.served.statusArray() }
    }

    /// Stops listening and closes the validator; the series keep their last values.
    public func close() {
        for (reachability, consumer) in zip(targets, consumers) { reachability.removeConsumer(consumer) }
        validator?.close()
    }
}
