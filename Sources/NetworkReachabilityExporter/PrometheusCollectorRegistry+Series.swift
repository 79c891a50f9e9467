import Prometheus

extension PrometheusCollectorRegistry {
    /// The gauge `name` with `labels`, made or found, with its help text.
    func gauge(_ name: String, labels: [(String, String)] = [], help: String) -> Gauge {
        makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }

    /// The counter `name` with `labels`, made or found, with its help text.
    func counter(_ name: String, labels: [(String, String)] = [], help: String) -> Counter {
        makeCounter(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }

    /// One counter `name` for each of `keys`, labelled `label` with the key's raw value, all with `help`.
    func counters<Key: RawRepresentable & Hashable>(_ name: String, label: String, for keys: [Key], help: String)
        -> [Key: Counter] where Key.RawValue == String
    {
        Dictionary(uniqueKeysWithValues: keys.map { ($0, counter(name, labels: [(label, $0.rawValue)], help: help)) })
    }
}
