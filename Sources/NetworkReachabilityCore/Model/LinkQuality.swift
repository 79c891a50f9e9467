/// How good the link under a path is, measured passively from the host's own TCP flows through a gateway of the
/// path's interface: NWPath's `linkQuality`, with its figures.
///
/// Each figure is a weighted median of the samples, whose weights halve every 60 s; a figure no sample gave is
/// `nil`. ``effectiveType`` is the figures' class (``EffectiveConnectionType``), moved only when the figures pass a
/// threshold by the margin `Semantics` names, so a link at a class's edge does not flap. On Linux the samples come
/// from the kernel's `tcp_info` of every process's sockets (sock_diag); a radio generation is never a sample.
public struct LinkQuality: Sendable, Hashable {
    /// The class the figures give; ``EffectiveConnectionType/unknown`` without samples.
    public var effectiveType: EffectiveConnectionType
    /// The round trip flows see (the kernel's smoothed RTT), queueing included.
    public var rtt: Duration?
    /// The shortest round trip the flows saw: the path's length without its queues.
    public var minimumRTT: Duration?
    /// The throughput of flows that moved enough data to measure it (32 KB or more), in kbit/s.
    public var downlinkKbps: Int?
    /// How many samples the estimate holds, old ones included (their weight is smaller).
    public var sampleCount: Int
    /// How long ago the newest sample was taken, when the estimate was made.
    public var age: Duration?

    /// Makes a quality; every figure is optional.
    public init(
        effectiveType: EffectiveConnectionType, rtt: Duration? = nil, minimumRTT: Duration? = nil,
        downlinkKbps: Int? = nil, sampleCount: Int = 0, age: Duration? = nil
    ) {
        self.effectiveType = effectiveType
        self.rtt = rtt
        self.minimumRTT = minimumRTT
        self.downlinkKbps = downlinkKbps
        self.sampleCount = sampleCount
        self.age = age
    }

    /// No sample yet: the class is unknown.
    public static let unmeasured = LinkQuality(effectiveType: .unknown)

    /// `3g-like (rtt 420 ms, 610 kbit/s, 37 samples)`: what `reach` prints after the interface.
    public var summary: String {
        guard effectiveType != .unknown else { return "quality unknown (no samples)" }
        var figures: [String] = []
        if let rtt { figures.append("rtt \(Self.milliseconds(rtt)) ms") }
        if let downlinkKbps { figures.append("\(downlinkKbps) kbit/s") }
        figures.append(sampleCount == 1 ? "1 sample" : "\(sampleCount) samples")
        return "\(effectiveType)-like (\(figures.joined(separator: ", ")))"
    }

    /// Whole milliseconds of `duration`, rounded to the nearest: the JSON's `rttMs` and `minRttMs`.
    package static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int((Double(attoseconds) / 1e15).rounded())
    }
}

extension LinkQuality: Codable {
    private enum CodingKeys: String, CodingKey {
        case effectiveType, rttMs, minRttMs, downlinkKbps, qualitySamples, qualityAgeMs
    }

    /// Decodes what ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            effectiveType: try container.decode(EffectiveConnectionType.self, forKey: .effectiveType),
            rtt: try container.decodeIfPresent(Int.self, forKey: .rttMs).map { .milliseconds($0) },
            minimumRTT: try container.decodeIfPresent(Int.self, forKey: .minRttMs).map { .milliseconds($0) },
            downlinkKbps: try container.decodeIfPresent(Int.self, forKey: .downlinkKbps),
            sampleCount: try container.decodeIfPresent(Int.self, forKey: .qualitySamples) ?? 0,
            age: try container.decodeIfPresent(Int.self, forKey: .qualityAgeMs).map { .milliseconds($0) })
    }

    /// Encodes the keys of `reach --quality --json`, beside the path's own: `effectiveType`, `rttMs`, `minRttMs`,
    /// `downlinkKbps` (null where no sample gave them), `qualitySamples` and `qualityAgeMs`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(effectiveType, forKey: .effectiveType)
        try container.encode(rtt.map(Self.milliseconds), forKey: .rttMs)
        try container.encode(minimumRTT.map(Self.milliseconds), forKey: .minRttMs)
        try container.encode(downlinkKbps, forKey: .downlinkKbps)
        try container.encode(sampleCount, forKey: .qualitySamples)
        try container.encode(age.map(Self.milliseconds), forKey: .qualityAgeMs)
    }
}
