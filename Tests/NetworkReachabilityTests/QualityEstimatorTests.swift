import Foundation
import Testing

@testable import NetworkReachabilityCore

/// The estimator's rules: netinfo's table, the margin against flapping, weights halving every minute, bounds.
struct QualityEstimatorTests {
    private static let start = ContinuousClock.now

    private static func sample(rtt milliseconds: Int, downlink: Int? = nil, at seconds: Double = 0) -> QualitySample {
        QualitySample(
            rtt: .milliseconds(milliseconds), minimumRTT: .milliseconds(milliseconds / 2), downlinkKbps: downlink,
            takenAt: start + .milliseconds(Int64(seconds * 1000)))
    }

    @Test(arguments: [
        (50, nil, EffectiveConnectionType.type4G), (269, nil, .type4G), (270, nil, .type3G), (1399, nil, .type3G),
        (1400, nil, .type2G), (1999, nil, .type2G), (2000, nil, .slow2G), (50, 701, .type4G), (50, 700, .type3G),
        (50, 71, .type3G), (50, 70, .type2G), (50, 51, .type2G), (50, 50, .slow2G), (300, 60, .type2G),
    ] as [(Int, Int?, EffectiveConnectionType)])
    func theClassIsTheWorstEitherFigureReaches(rtt: Int, downlink: Int?, expected: EffectiveConnectionType) {
        #expect(QualityEstimator.classify(rtt: .milliseconds(rtt), downlinkKbps: downlink) == expected)
    }

    @Test func withoutFiguresTheClassIsUnknown() {
        #expect(QualityEstimator.classify(rtt: nil, downlinkKbps: nil) == .unknown)
        var estimator = QualityEstimator()
        #expect(estimator.estimate(of: "eth0", now: Self.start) == .unmeasured)
    }

    @Test func aLinkAtAThresholdKeepsItsClassUntilTheMarginIsPassed() {
        // 3g from 270 ms: a 4g link must reach 297 ms (10 % past) to become 3g, and a 3g one fall below 245 ms.
        #expect(QualityEstimator.classify(rtt: .milliseconds(290), downlinkKbps: nil, after: .type4G) == .type4G)
        #expect(QualityEstimator.classify(rtt: .milliseconds(298), downlinkKbps: nil, after: .type4G) == .type3G)
        #expect(QualityEstimator.classify(rtt: .milliseconds(250), downlinkKbps: nil, after: .type3G) == .type3G)
        #expect(QualityEstimator.classify(rtt: .milliseconds(244), downlinkKbps: nil, after: .type3G) == .type4G)
        // Downlink: 3g to 700 kbit/s; a 4g link must fall to 636 kbit/s, a 3g one rise past 770.
        #expect(QualityEstimator.classify(rtt: .milliseconds(50), downlinkKbps: 650, after: .type4G) == .type4G)
        #expect(QualityEstimator.classify(rtt: .milliseconds(50), downlinkKbps: 630, after: .type4G) == .type3G)
        #expect(QualityEstimator.classify(rtt: .milliseconds(50), downlinkKbps: 760, after: .type3G) == .type3G)
        #expect(QualityEstimator.classify(rtt: .milliseconds(50), downlinkKbps: 780, after: .type3G) == .type4G)
        // A fall of two classes at once lands where the margin allows.
        #expect(QualityEstimator.classify(rtt: .milliseconds(2500), downlinkKbps: nil, after: .type4G) == .slow2G)
    }

    @Test func aFlappingLinkAtAnEdgeChangesClassOnce() {
        var estimator = QualityEstimator()
        var changes = 0
        // 200 readings alternating 260 and 280 ms around the 270 ms threshold, one a second.
        for step in 0..<200 {
            let rtt = step.isMultiple(of: 2) ? 260 : 280
            if estimator.add([Self.sample(rtt: rtt, at: Double(step))], on: "eth0", now: Self.start + .seconds(step))
                .classChanged
            {
                changes += 1
            }
        }
        #expect(changes == 1)  // unknown to the first class, then never again
    }

    @Test func theMedianFollowsNewSamplesAsOldOnesLoseHalfTheirWeightEachMinute() {
        var estimator = QualityEstimator()
        // Ten samples at 1,600 ms five minutes ago weigh 10/32 of one each; three new ones at 50 ms outweigh them.
        let old = (0..<10).map { _ in Self.sample(rtt: 1600, at: 0) }
        _ = estimator.add(old, on: "wwan0", now: Self.start)
        let now = Self.start + .seconds(300)
        let (quality, changed) = estimator.add(
            (0..<3).map { _ in Self.sample(rtt: 50, at: 300) }, on: "wwan0", now: now)
        #expect(quality.rtt == .milliseconds(50))
        #expect(quality.effectiveType == .type4G && changed)
        #expect(quality.sampleCount == 13)
        #expect(quality.minimumRTT == .milliseconds(25))
        #expect(quality.age == .zero)
        // Without the five minutes, the ten old ones would win.
        var fresh = QualityEstimator()
        let same = fresh.add(old + (0..<3).map { _ in Self.sample(rtt: 50, at: 0) }, on: "wwan0", now: Self.start)
        #expect(same.quality.rtt == .milliseconds(1600))
    }

    @Test func anInterfaceKeepsItsNewest256SamplesAndForgetsThoseOlderThanFifteenMinutes() {
        var estimator = QualityEstimator()
        let many = (0..<10_000).map { Self.sample(rtt: $0 < 9_744 ? 2500 : 40, at: 0) }
        let (quality, _) = estimator.add(many, on: "eth0", now: Self.start)
        #expect(quality.sampleCount == QualityEstimator.capacity)
        #expect(quality.rtt == .milliseconds(40))  // only the last 256 remain
        let later = estimator.estimate(of: "eth0", now: Self.start + .seconds(15 * 60 + 1))
        #expect(later == .unmeasured)
    }

    @Test func throughputNeeds32KilobytesMoved() {
        #expect(QualitySample.throughputKbps(bytes: 32 * 1024 - 1, over: .seconds(1)) == nil)
        #expect(QualitySample.throughputKbps(bytes: 37_500, over: .seconds(1)) == 300)
        #expect(QualitySample.throughputKbps(bytes: 1_000_000, over: .zero) == nil)
    }

    @Test func theSummaryAndJSONSayTheFigures() throws {
        let quality = LinkQuality(
            effectiveType: .type3G, rtt: .milliseconds(420), minimumRTT: .milliseconds(380), downlinkKbps: 610,
            sampleCount: 37, age: .milliseconds(1500))
        #expect(quality.summary == "3g-like (rtt 420 ms, 610 kbit/s, 37 samples)")
        #expect(LinkQuality.unmeasured.summary == "quality unknown (no samples)")
        var path = ReachabilityPath(interface: NetworkInterface(name: "eth0", index: 2, type: .wiredEthernet))
        path.quality = quality
        let snapshot = ReachabilitySnapshot(target: .internet, flags: [.reachable], path: path)
        let data = try JSONEncoder().encode(snapshot)
        let json = String(decoding: data, as: UTF8.self)
        for key in [
            "\"effectiveType\":\"3g\"", "\"rttMs\":420", "\"minRttMs\":380", "\"downlinkKbps\":610", "\"qualitySamples\":37",
        ] {
            #expect(json.contains(key), "\(key) in \(json)")
        }
        #expect(try JSONDecoder().decode(ReachabilitySnapshot.self, from: data) == snapshot)
        #expect(snapshot.withoutQuality.path.quality == nil)
    }
}
