/// One flow's figures, as a platform's reader takes them: what ``QualityEstimator`` aggregates.
package struct QualitySample: Sendable, Hashable {
    /// The flow's smoothed round trip.
    package var rtt: Duration
    /// The shortest round trip the flow saw, where the platform keeps it.
    package var minimumRTT: Duration?
    /// The flow's throughput in kbit/s, only where it moved at least ``QualitySample/minimumMeasuredBytes``.
    package var downlinkKbps: Int?
    /// When it was taken, on the monotonic clock.
    package var takenAt: ContinuousClock.Instant

    /// Makes a sample.
    package init(rtt: Duration, minimumRTT: Duration? = nil, downlinkKbps: Int? = nil, takenAt: ContinuousClock.Instant) {
        self.rtt = rtt
        self.minimumRTT = minimumRTT
        self.downlinkKbps = downlinkKbps
        self.takenAt = takenAt
    }

    /// The bytes a flow must have moved before its throughput is a sample: Chromium's estimator counts throughput
    /// only from 32 KB on, as less is mostly the slow start's first round trips.
    package static let minimumMeasuredBytes: UInt64 = 32 * 1024

    /// kbit/s of `bytes` moved in `interval`; `nil` below ``minimumMeasuredBytes`` or for an empty interval.
    package static func throughputKbps(bytes: UInt64, over interval: Duration) -> Int? {
        guard bytes >= minimumMeasuredBytes else { return nil }
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        guard seconds > 0 else { return nil }
        return Int((Double(bytes) * 8 / 1000 / seconds).rounded())
    }
}
