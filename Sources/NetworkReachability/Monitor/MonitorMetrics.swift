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
        deliveries = Counter(label: "network_reachability_deliveries_total", factory: factory)
        evaluations = Counter(label: "network_reachability_evaluations_total", factory: factory)
        resynchronizations = Counter(label: "network_reachability_resynchronizations_total", factory: factory)
        malformedMessages = Counter(
            label: "network_reachability_dropped_messages_total", dimensions: [("reason", "malformed")], factory: factory)
        foreignMessages = Counter(
            label: "network_reachability_dropped_messages_total", dimensions: [("reason", "foreign")], factory: factory)
        changeToDelivery = Timer(
            label: "network_reachability_change_to_delivery_seconds", preferredDisplayUnit: .seconds, factory: factory)
    }
}
