public import CoreMetrics
import NetworkReachabilityCore
import NetworkReachabilityValidationCore
public import Prometheus

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

    /// The family's name as swift-metrics labels it, with its description: one of a kind for a family that neither
    /// table names.
    private func family(_ label: String, _ kind: String) -> MetricNameDescriptor {
        MetricNameDescriptor(
            metricName: label, unitName: "",
            helpText: descriptions[label] ?? "A \(kind) the process records through swift-metrics.")
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: family(label, "counter"), labels: dimensions)
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: family(label, "counter"), labels: dimensions)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: family(label, "gauge"), labels: dimensions) }
        return registry.makeValueHistogram(
            descriptor: family(label, "histogram"), labels: dimensions,
            buckets: plain.valueHistogramBuckets[label] ?? plain.defaultValueHistogramBuckets)
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: family(label, "gauge"), labels: dimensions)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(
            descriptor: family(label, "duration histogram"), labels: dimensions,
            buckets: plain.durationHistogramBuckets[label] ?? plain.defaultDurationHistogramBuckets)
    }

    public func destroyCounter(_ handler: any CounterHandler) { plain.destroyCounter(handler) }
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        plain.destroyFloatingPointCounter(handler)
    }
    public func destroyRecorder(_ handler: any RecorderHandler) { plain.destroyRecorder(handler) }
    public func destroyMeter(_ handler: any MeterHandler) { plain.destroyMeter(handler) }
    public func destroyTimer(_ handler: any TimerHandler) { plain.destroyTimer(handler) }
}
