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
}
