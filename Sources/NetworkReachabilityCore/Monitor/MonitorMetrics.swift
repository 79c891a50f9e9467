import CoreMetrics

/// What a monitor records through swift-metrics, made once with its factory: nothing is recorded unless the
/// application bootstraps a backend (`MetricsSystem.bootstrap`) before its first `NetworkReachability`, or a test
/// hands the monitor a factory. Labels are fixed and dimensions bounded: nothing per target or address.
struct MonitorMetrics: Sendable {
    /// Snapshots handed to consumers (listeners, `updates`, waits): `network_reachability_deliveries_total`.
    let deliveries: Counter
    /// Targets evaluated after changes and for new listeners: `network_reachability_evaluations_total`.
    let evaluations: Counter
    /// Kernel socket overflows, each followed by a re-read of the whole state:
    /// `network_reachability_resynchronizations_total`.
    let resynchronizations: Counter
    /// Kernel messages dropped: `network_reachability_dropped_messages_total{reason="malformed"}` (could not be
    /// parsed) and `{reason="foreign"}` (not sent by the kernel).
    let malformedMessages: Counter
    let foreignMessages: Counter
    /// From a batch of changes read to the pass's deliveries handed out:
    /// `network_reachability_change_to_delivery_seconds`.
    let changeToDelivery: Timer

    /// The factory the metrics were made with, for what is built on the monitor (the validator's probes).
    let factory: any MetricsFactory

    init(factory: any MetricsFactory) {
        self.factory = factory
        deliveries = Counter(label: Family.deliveries.rawValue, factory: factory)
        evaluations = Counter(label: Family.evaluations.rawValue, factory: factory)
        resynchronizations = Counter(label: Family.resynchronizations.rawValue, factory: factory)
        malformedMessages = Counter(
            label: Family.droppedMessages.rawValue, dimensions: [("reason", "malformed")], factory: factory)
        foreignMessages = Counter(label: Family.droppedMessages.rawValue, dimensions: [("reason", "foreign")], factory: factory)
        changeToDelivery = Timer(label: Family.changeToDelivery.rawValue, preferredDisplayUnit: .seconds, factory: factory)
    }

    /// Each family the monitor records, by name, with what it says: the one place both are written.
    enum Family: String, CaseIterable {
        case deliveries = "network_reachability_deliveries_total"
        case evaluations = "network_reachability_evaluations_total"
        case resynchronizations = "network_reachability_resynchronizations_total"
        case droppedMessages = "network_reachability_dropped_messages_total"
        case changeToDelivery = "network_reachability_change_to_delivery_seconds"

        /// The family's help text, as Prometheus shows it.
        var help: String {
            switch self {
            case .deliveries: "Snapshots handed to listeners, update streams and waits."
            case .evaluations: "Targets evaluated after network changes and for new listeners."
            case .resynchronizations: "Kernel socket overflows, each followed by a re-read of the whole network state."
            case .droppedMessages: "Kernel messages dropped: malformed (could not be parsed) or foreign (not from the kernel)."
            case .changeToDelivery: "Seconds from a batch of network changes read to its deliveries handed out."
            }
        }
    }
}
