/// The estimate of each interface's quality from its samples: weighted medians whose weights halve every
/// ``halfLife`` (as Chromium's network quality estimator), classified with a margin so a link at a class's edge keeps
/// its class. A value owned by one reader, which calls it under its own lock.
package struct QualityEstimator: Sendable {
    /// Samples lose half their weight every minute.
    package static let halfLife: Duration = .seconds(60)
    /// Samples older than this weigh less than 1/32,768 of a new one and are dropped: a link unused this long is
    /// unknown again.
    package static let maximumAge: Duration = .seconds(15 * 60)
    /// The newest samples an interface keeps: enough for a median, and a bound on memory and on the cost of one
    /// estimate whatever the rate of flows (a host closing 10,000 connections a second keeps the last 256).
    package static let capacity = 256

    private struct Window: Sendable {
        var samples: [QualitySample] = []
        /// Where the next sample goes once the window is full.
        var next = 0
        /// The class last estimated: the margin is applied against it.
        var effectiveType = EffectiveConnectionType.unknown

        mutating func add(_ sample: QualitySample) {
            if samples.count < QualityEstimator.capacity {
                samples.append(sample)
            } else {
                samples[next] = sample
                next = (next + 1) % QualityEstimator.capacity
            }
        }
    }

    private var windows: [String: Window] = [:]

    /// An estimator with no samples.
    package init() {}

    /// Adds samples of the interface named `interface`, then estimates it again: the new estimate, and whether its
    /// class changed.
    package mutating func add(
        _ samples: [QualitySample], on interface: String, now: ContinuousClock.Instant
    ) -> (quality: LinkQuality, classChanged: Bool) {
        let before = windows[interface]?.effectiveType ?? .unknown
        record(samples, on: interface)
        let quality = estimate(of: interface, now: now)
        return (quality, quality.effectiveType != before)
    }

    /// Adds samples of the interface named `interface` without estimating it: a reader that receives samples faster
    /// than it needs estimates records them as they come and estimates on its own schedule.
    package mutating func record(_ samples: [QualitySample], on interface: String) {
        var window = windows[interface] ?? Window()
        for sample in samples { window.add(sample) }
        windows[interface] = window
    }

    /// The class last estimated for the interface named `interface`.
    package func effectiveType(of interface: String) -> EffectiveConnectionType {
        windows[interface]?.effectiveType ?? .unknown
    }

    /// The quality of the interface named `interface` now, its samples past ``maximumAge`` dropped; keeps the class
    /// it gives, against which the next estimate's margin applies.
    package mutating func estimate(of interface: String, now: ContinuousClock.Instant) -> LinkQuality {
        guard var window = windows[interface] else { return .unmeasured }
        if window.samples.contains(where: { now - $0.takenAt > Self.maximumAge }) {
            let ordered = Array(window.samples[window.next...] + window.samples[..<window.next])
            window.samples = ordered.filter { now - $0.takenAt <= Self.maximumAge }
            window.next = 0
        }
        guard !window.samples.isEmpty else {
            windows[interface] = nil
            return .unmeasured
        }
        let weights = window.samples.map { Self.weight(age: now - $0.takenAt) }
        let rtt = Self.weightedMedian(zip(window.samples.map { Self.microseconds($0.rtt) }, weights))
        let minimum = Self.weightedMedian(
            zip(window.samples, weights).compactMap { sample, weight in sample.minimumRTT.map { (Self.microseconds($0), weight) } })
        let downlink = Self.weightedMedian(
            zip(window.samples, weights).compactMap { sample, weight in sample.downlinkKbps.map { (Double($0), weight) } })
        let rttDuration = rtt.map { Duration.microseconds(Int64($0.rounded())) }
        let downlinkKbps = downlink.map { Int($0.rounded()) }
        window.effectiveType = Self.classify(rtt: rttDuration, downlinkKbps: downlinkKbps, after: window.effectiveType)
        windows[interface] = window
        let newest = window.samples.map(\.takenAt).max()
        return LinkQuality(
            effectiveType: window.effectiveType, rtt: rttDuration,
            minimumRTT: minimum.map { Duration.microseconds(Int64($0.rounded())) }, downlinkKbps: downlinkKbps,
            sampleCount: window.samples.count, age: newest.map { max(.zero, now - $0) })
    }

    // MARK: - Classification

    /// How far past a threshold the figures must be to change an interface's class: 10 % of the threshold (a round
    /// trip 10 % longer, or a downlink 10 % smaller, to be worse; as much shorter or larger to be better again).
    package static let margin = 0.10

    /// The Network Information API's class of a round trip and a downlink (its table as Chromium applies it): the
    /// worst class either figure reaches; ``EffectiveConnectionType/unknown`` with neither.
    package static func classify(rtt: Duration?, downlinkKbps: Int?) -> EffectiveConnectionType {
        classify(rttMilliseconds: rtt.map { microseconds($0) / 1000 }, downlinkKbps: downlinkKbps.map(Double.init))
    }

    /// The class of the figures after `previous`: a class other than `previous` only when the figures reach it with
    /// the ``margin`` counted against the move.
    package static func classify(
        rtt: Duration?, downlinkKbps: Int?, after previous: EffectiveConnectionType
    ) -> EffectiveConnectionType {
        let milliseconds = rtt.map { microseconds($0) / 1000 }
        let downlink = downlinkKbps.map(Double.init)
        let plain = classify(rttMilliseconds: milliseconds, downlinkKbps: downlink)
        guard previous != .unknown, plain != .unknown, plain != previous else { return plain }
        if plain < previous {
            // Worse only if it stays worse with the figures given the margin's benefit.
            let lenient = classify(
                rttMilliseconds: milliseconds.map { $0 / (1 + margin) }, downlinkKbps: downlink.map { $0 * (1 + margin) })
            return lenient < previous ? lenient : previous
        }
        let strict = classify(
            rttMilliseconds: milliseconds.map { $0 * (1 + margin) }, downlinkKbps: downlink.map { $0 / (1 + margin) })
        return strict > previous ? strict : previous
    }

    /// The thresholds: `slow-2g` from 2,000 ms or to 50 kbit/s, `2g` from 1,400 ms or to 70 kbit/s, `3g` from
    /// 270 ms or to 700 kbit/s, `4g` otherwise.
    private static func classify(rttMilliseconds rtt: Double?, downlinkKbps downlink: Double?) -> EffectiveConnectionType {
        guard rtt != nil || downlink != nil else { return .unknown }
        let bands: [(EffectiveConnectionType, rtt: Double, downlink: Double)] = [
            (.slow2G, 2000, 50), (.type2G, 1400, 70), (.type3G, 270, 700),
        ]
        for (type, rttFloor, downlinkCeiling) in bands {
            if let rtt, rtt >= rttFloor { return type }
            if let downlink, downlink <= downlinkCeiling { return type }
        }
        return .type4G
    }

    // MARK: - Aggregation

    /// `0.5^(age / halfLife)`.
    private static func weight(age: Duration) -> Double {
        let seconds = Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18
        return pow2(-max(0, seconds) / 60)
    }

    /// The value at which the weights below reach half of all: the weighted median.
    private static func weightedMedian<Values: Sequence>(_ pairs: Values) -> Double? where Values.Element == (Double, Double) {
        let sorted = pairs.sorted { $0.0 < $1.0 }
        let total = sorted.reduce(0) { $0 + $1.1 }
        guard total > 0 else { return sorted.first?.0 }
        var cumulative = 0.0
        for (value, weight) in sorted {
            cumulative += weight
            if cumulative >= total / 2 { return value }
        }
        return sorted.last?.0
    }

    private static func microseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
    }

    /// 2^x without Foundation: the core imports no C library.
    private static func pow2(_ exponent: Double) -> Double {
        guard exponent > -1074 else { return 0 }
        let whole = exponent.rounded(.down)
        let fraction = exponent - whole
        // e^(fraction·ln 2) by its series: |fraction·ln 2| < 0.7, so twelve terms are exact to a double's precision.
        let x = fraction * 0.6931471805599453
        var term = 1.0
        var sum = 1.0
        for n in 1...12 {
            term *= x / Double(n)
            sum += term
        }
        return sum * Double(sign: .plus, exponent: Int(whole), significand: 1)
    }
}
