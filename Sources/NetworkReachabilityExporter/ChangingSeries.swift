import Prometheus

/// Series whose labels come and go with a target's path: its info series, and its link's details, which exist only
/// while ModemManager or NetworkManager say them (an absent series says "not known" where a 0 would say something
/// false). Each ``show(_:)`` keeps exactly the series it is given, making the new ones and unregistering the rest.
/// Used on the server's event loop only.
final class ChangingSeries {
    /// One series: its metric name and help text, all its labels, and its value.
    typealias Series = (metric: (name: String, help: String), labels: [(String, String)], value: Double)

    private let registry: PrometheusCollectorRegistry
    /// The series present now, by name and labels.
    private var present: [String: Gauge] = [:]

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// Makes the registry hold exactly `wanted` of these series, with their values.
    func show(_ wanted: [Series]) {
        var kept: [String: Gauge] = [:]
        for (metric, labels, value) in wanted {
            let key = metric.name + labels.map { "\($0)=\($1)" }.joined(separator: ",")
            let gauge = present[key] ?? registry.gauge(metric.name, labels: labels, help: metric.help)
            gauge.set(to: value)
            kept[key] = gauge
        }
        for (key, gauge) in present where kept[key] == nil { registry.unregisterGauge(gauge) }
        present = kept
    }
}
