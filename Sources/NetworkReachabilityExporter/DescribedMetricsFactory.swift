import CoreMetrics
import NetworkReachabilityCore
import NetworkReachabilityValidationCore
import Prometheus

/// A swift-metrics backend on Prometheus' registry, as `PrometheusMetricsFactory` makes its families, but each with a
/// `# HELP` line (swift-metrics carries no description): the library's and the validator's from their own tables, so
/// that `promtool check metrics` finds every family described. `reach serve` bootstraps it; so may your server:
///
/// ```swift
/// MetricsSystem.bootstrap(DescribedMetricsFactory(registry: registry))   // before the first NetworkReachability
/// ```
public struct DescribedMetricsFactory: MetricsFactory {
    private let registry: PrometheusCollectorRegistry
    /// Prometheus' own factory: its buckets, and the unregistering of what is destroyed.
    private let plain: PrometheusMetricsFactory
    private let descriptions: [String: String]

    /// Makes each family in `registry`.
    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        plain = PrometheusMetricsFactory(registry: registry)
        descriptions = NetworkReachability.metricDescriptions.merging(ConnectivityValidator.metricDescriptions) { $1 }
    }

    /// The family's description; one of a kind for a family that neither table names.
    private func help(_ label: String, _ kind: String) -> String {
        descriptions[label] ?? "A \(kind) the process records through swift-metrics."
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(name: label, labels: dimensions, help: help(label, "counter"))
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(name: label, labels: dimensions, help: help(label, "counter"))
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(name: label, labels: dimensions, help: help(label, "gauge")) }
        return registry.makeValueHistogram(
            name: label, labels: dimensions, buckets: plain.valueHistogramBuckets[label] ?? plain.defaultValueHistogramBuckets,
            help: help(label, "histogram"))
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(name: label, labels: dimensions, help: help(label, "gauge"))
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(
            name: label, labels: dimensions,
            buckets: plain.durationHistogramBuckets[label] ?? plain.defaultDurationHistogramBuckets,
            help: help(label, "duration histogram"))
    }

    public func destroyCounter(_ handler: any CounterHandler) { plain.destroyCounter(handler) }
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        plain.destroyFloatingPointCounter(handler)
    }
    public func destroyRecorder(_ handler: any RecorderHandler) { plain.destroyRecorder(handler) }
    public func destroyMeter(_ handler: any MeterHandler) { plain.destroyMeter(handler) }
    public func destroyTimer(_ handler: any TimerHandler) { plain.destroyTimer(handler) }
}
