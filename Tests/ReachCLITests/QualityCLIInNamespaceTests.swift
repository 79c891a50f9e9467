import Foundation
import Testing
import TestSupport

/// `--quality` from outside: `reach watch`, `status`, `wait`, `serve` and `queue`, against real TCP flows that another
/// process makes over a delay line (two tun devices, each packet held N ms) or a tbf-shaped link, in namespaces.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread(timeLimit: .seconds(180)))
struct QualityCLIInNamespaceTests {
    private func object(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
    }

    /// Round trips of about 50, 400, 1,600 and 2,500 ms read as 4g, 3g, 2g and slow-2g, the RTT within 20 %.
    @Test(arguments: [(25, "4g"), (200, "3g"), (800, "2g"), (1250, "slow-2g")])
    func eachRoundTripReadsAsItsClassWhileWatchRuns(oneWayMilliseconds: Int, expected: String) throws {
        let network = try TestNetwork.delayLine(oneWay: .milliseconds(oneWayMilliseconds))
        defer { network.remove() }
        let output = LineCollector()
        let watcher = try network.start([ReachBinary.path, "watch", "--quality", "--json"], output: output.pipe)
        let first = object(try #require(output.waitForLines(1, timeout: 20).first))
        #expect(first["effectiveType"] as? String == "unknown" && first["qualitySamples"] as? Int == 0)
        #expect(first.keys.contains("rttMs") && first["rttMs"] is NSNull)

        try network.fetch(1000)

        let measured = try #require(output.waitForLine(timeout: 30) { object($0)["effectiveType"] as? String == expected })
        let rtt = try #require(object(measured)["rttMs"] as? Int)
        let configured = 2 * oneWayMilliseconds
        // Within 20 %; for the shortest, 15 ms more may be the delay line's own (a Python process holding packets on a
        // loaded machine adds a few ms, never less).
        let tolerance = max(configured / 5, rtt > configured ? 15 : 0)
        #expect(abs(rtt - configured) <= tolerance, "rtt \(rtt) ms for \(configured) ms")
        #expect((object(measured)["qualitySamples"] as? Int ?? 0) >= 1)
        #expect(object(measured)["minRttMs"] is Int)
        watcher.send(SIGTERM)
        #expect(watcher.wait() == .exited(0))
    }

    @Test func statusSaysQualityOnlyWhenAskedAndUnknownWithoutFlows() throws {
        let network = try TestNetwork.delayLine(oneWay: .milliseconds(5))
        defer { network.remove() }
        let plain = try ReachBinary.status(in: network, [])
        #expect(plain.json["effectiveType"] == nil)
        let measured = try ReachBinary.status(in: network, ["--quality"])
        #expect(measured.exit == 0)
        #expect(measured.json["effectiveType"] as? String == "unknown" && measured.json["qualitySamples"] as? Int == 0)
        let line = try network.run([ReachBinary.path, "status", "--quality"])
        #expect(line.lines.first?.contains(", quality unknown (no samples) [") == true, "\(line.lines)")
    }

    @Test func waitQualityEndsOnceTheLinkIsGoodEnoughAndTimesOutWhenItIsNot() throws {
        let network = try TestNetwork.delayLine(oneWay: .milliseconds(200))
        defer { network.remove() }
        let good = try network.start([ReachBinary.path, "wait", "--quality", "3g", "--timeout", "30"])
        let better = LineCollector()
        let tooGood = try network.start(
            [ReachBinary.path, "wait", "--quality", "4g", "--timeout", "6"], errors: better.pipe)
        // Both wait while nothing is measured
        usleep(1_000_000)
        #expect(good.isRunning && tooGood.isRunning)
        try network.fetch(1000)
        #expect(good.wait() == .exited(0))
        #expect(tooGood.wait() == .exited(1))
        #expect(better.lines.first?.hasPrefix("reach: still waiting after 6 s: internet (reachable") == true, "\(better.lines)")
        // A class that does not exist is bad input
        let bad = try ReachBinary.run(["wait", "--quality", "5g"])
        #expect(bad.status == 64 && bad.standardError.contains("'5g' is no quality"))
    }

    @Test func serveQualityExportsTheClassTheRoundTripAndTheThroughput() throws {
        let network = try TestNetwork.delayLine(oneWay: .milliseconds(10), rateKbps: 300)
        defer { network.remove() }
        let server = try ServeClient(["--quality"], in: network)
        defer { server.stop() }
        #expect(try server.samples(of: "reach_effective_connection_type").contains { $0.labels["type"] == "unknown" && $0.value == 1 })
        try network.fetch(1000)
        try network.fetch(150_000)
        #expect(
            eventually(timeout: 20) {
                (try? server.samples(of: "reach_effective_connection_type"))?.contains {
                    $0.labels["type"] == "3g" && $0.value == 1
                } == true
            })
        let downlink = try #require(try server.samples(of: "reach_downlink_bits_per_second").first?.value)
        #expect(downlink >= 240_000 && downlink <= 360_000, "\(downlink) bit/s for 300 kbit/s")
        let rtt = try #require(try server.samples(of: "reach_rtt_seconds").first?.value)
        #expect(rtt > 0.015 && rtt < 0.27, "\(rtt) s")
        // /status gives the figures of now, not those of the last change of class: the newest sample ages, and a
        // flow in the same class adds one.
        func statusQuality() throws -> [String: Any] {
            let body = try server.request("/status").body
            let array = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [[String: Any]]
            return try #require(array?.first)
        }
        let atChange = try #require(try statusQuality()["qualitySamples"] as? Int)
        #expect(eventually(timeout: 10) { ((try? statusQuality())?["qualityAgeMs"] as? Int ?? 0) >= 1000 })
        try network.fetch(1000)
        #expect(eventually(timeout: 10) { ((try? statusQuality())?["qualitySamples"] as? Int ?? 0) > atChange })
        // Without --quality, none of the three
        let plain = try ServeClient([], in: network)
        defer { plain.stop() }
        #expect(try plain.samples(of: "reach_effective_connection_type").isEmpty)
    }

    @Test func aQueuedJobWaitsForTheQualityItAsksFor() throws {
        let network = try TestNetwork.delayLine(oneWay: .milliseconds(200))
        defer { network.remove() }
        let folder = try TestFolder.make("quality")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/jobs.db"
        let output = LineCollector()
        let worker = try network.start([ReachBinary.path, "queue", "run", database], output: output.pipe)
        defer {
            worker.send(SIGTERM)
            _ = worker.wait()
        }
        for (condition, word) in [("quality=4g", "fast"), ("quality=3g", "good-enough")] {
            let added = try network.run([ReachBinary.path, "queue", "add", database, "--when", condition, "--", "echo", word])
            #expect(added.status == 0, "\(added)")
        }
        #expect(try ReachBinary.run(["queue", "list", database]).lines.contains { $0.contains("quality=3g") })
        // Nothing measured yet: neither runs
        #expect(output.linesAfterQuiet(1).isEmpty)
        try network.fetch(1000)
        #expect(output.waitForLines(1, timeout: 20) == ["good-enough"])
        #expect(output.linesAfterQuiet(1) == ["good-enough"])
        let bad = try ReachBinary.run(["queue", "add", database, "--when", "quality=5g", "--", "true"])
        #expect(bad.status == 64 && bad.standardError.contains("'quality=5g' is no condition"))
        let twice = try ReachBinary.run(["queue", "add", database, "--when", "quality=3g,quality=4g", "--", "true"])
        #expect(twice.status == 64 && twice.standardError.contains("--when names 2 qualities (quality=3g, quality=4g)"))
    }
}
