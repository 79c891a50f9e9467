import Foundation
import Testing
import TestSupport

/// `reach serve` inside a test network: a real Prometheus scrapes it and sees the internet go and come back,
/// `/events` says each change once, and hostile clients leave it up, bounded and answering.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct ServeInNamespaceTests {
    private func field(_ line: String, _ key: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        return object[key] as? String
    }

    @Test func prometheusSeesTheInternetGoAndComeBackAndEventsSayEachChangeOnceInOrder() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let server = try ServeClient(["internet", TestNetwork.gatewayIPv4], in: network)
        let events = LineCollector()
        _ = try server.startEventReader(into: events)
        // The current state of each target first
        #expect(events.waitForLines(3).count == 3)

        // Given Prometheus, as Debian ships it, scraping the server every second with its storage in a temporary folder
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nrt-prometheus-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = folder.appendingPathComponent("prometheus.yml")
        try """
        global:
          scrape_interval: 1s
          scrape_timeout: 1s
          evaluation_interval: 1s
        scrape_configs:
          - job_name: reach
            static_configs:
              - targets: ['\(server.address)']
        """.write(to: configuration, atomically: true, encoding: .utf8)
        let prometheus = try network.start([
            "prometheus", "--config.file=\(configuration.path)",
            "--storage.tsdb.path=\(folder.appendingPathComponent("data").path)",
            "--web.listen-address=127.0.0.1:9090", "--log.level=warn",
        ])
        defer {
            prometheus.send(SIGTERM)
            _ = prometheus.wait()
        }
        let api = "127.0.0.1:9090"
        let reachable = #"reach_target_reachable{target="internet"}"#

        // Then Prometheus' own API says 1, then 0 once the default route is deleted, then 1 once it is back
        #expect(try server.python("query", [api, reachable, "1", "60"])["values"] as? [String] == ["1"])
        try network.ip("route", "del", "default")
        #expect(try server.python("query", [api, reachable, "0", "30"])["values"] as? [String] == ["0"])
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        #expect(try server.python("query", [api, reachable, "1", "30"])["values"] as? [String] == ["1"])
        let history = try server.python("history", [api, reachable + "[10m]"])["values"] as? [String] ?? []
        let steps = history.reduce(into: [String]()) { steps, value in if steps.last != value { steps.append(value) } }
        #expect(steps == ["1", "0", "1"])

        // And the stream said the current state, then each change once, in order; the gateway's state never changed
        let settled = events.linesAfterQuiet()
        #expect(settled.first == "STATUS 200 text/event-stream")
        let internet = settled.filter { field($0, "target") == "internet" }.compactMap { field($0, "status") }
        #expect(internet == ["reachable", "notReachable", "reachable"])
        let gateway = settled.filter { field($0, "target") == TestNetwork.gatewayIPv4 }.compactMap { field($0, "status") }
        #expect(gateway == ["reachable"])
        #expect(server.stop() == .exited(0))
    }

    @Test func theValidationOutcomeIsASeriesAndPartOfEachEvent() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let probe = try ProbeServer(in: network)
        defer { probe.remove() }
        let server = try ServeClient(["internet", "--validate", probe.probeURL, "--validation-timeout", "1"], in: network)
        let events = LineCollector()
        _ = try server.startEventReader(into: events)
        #expect(events.waitForLine(where: { field($0, "validation") == "validated" }) != nil)
        func outcomes() throws -> [String: Double] {
            Dictionary(
                uniqueKeysWithValues: try server.samples(of: "reach_target_validation").map {
                    ($0.labels["outcome"] ?? "", $0.value)
                })
        }
        #expect(try outcomes() == ["validated": 1, "captivePortal": 0, "limited": 0, "notChecked": 0])

        // When a portal takes over and the path changes, the stream says so and the series follows
        try probe.set(.redirect)
        let seen = events.lines.count
        try network.ip("route", "del", "default")
        // The loss is awaited: a route deleted and re-added within one turn of the monitor is no change at all
        #expect(events.waitForLine(after: seen, where: { field($0, "status") == "notReachable" }) != nil)
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        let portal = events.waitForLine(after: seen, timeout: 30, where: { field($0, "validation") == "captivePortal" })
        #expect(portal.flatMap { field($0, "loginURL") } == probe.loginURL)
        #expect(try outcomes() == ["validated": 0, "captivePortal": 1, "limited": 0, "notChecked": 0])
        let status = try server.request("/status")
        #expect(status.body.contains(#""validation":"captivePortal""#))
        #expect(server.stop() == .exited(0))
    }

    /// node_exporter's `--web.listen-address=:9100`: every address of both families, as Go listens for it.
    @Test func aListenAddressWithoutHostIsEveryAddressOfBothFamilies() throws {
        let network = try TestNetwork(ipv4: true, ipv6: true)
        defer { network.remove() }
        let server = try ServeClient(["internet"], in: network, listening: "")
        defer { server.stop() }
        #expect(server.address.hasPrefix("[::]:"), "\(server.address)")
        let port = try #require(server.address.split(separator: ":").last)
        for host in ["127.0.0.1", TestNetwork.hostIPv4, "[::1]"] {
            let answer = try server.python("request", ["\(host):\(port)", "GET", "/status"])
            #expect(answer["status"] as? Int == 200, "\(host): \(answer)")
        }
    }

    @Test func hostileClientsAreClosedAndBoundedWhileOthersAreAnswered() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        // 1,001 targets, so a change is about 400 KB of events and a reader that stops falls behind fast
        let targets = ["internet"] + (0..<1000).map { "10.77.\($0 / 250).\($0 % 250 + 1)" }
        let server = try ServeClient(
            targets + ["--request-timeout", "2", "--max-connections", "128", "--max-streams", "4"], in: network)

        // A client that asks for /events and never reads, beside one that reads every event
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("nrt-nonreader-\(UUID())").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let stalled = LineCollector()
        _ = try network.start(
            ["/usr/bin/python3", "-u", "-c", ServeClient.script, "nonreader", server.address, fifo], output: stalled.pipe)
        #expect(stalled.waitForLine(where: { $0 == "connected" }) != nil)
        let reader = LineCollector()
        _ = try server.startEventReader(into: reader)
        var expected = 1 + targets.count
        #expect(reader.waitForLines(expected, timeout: 30).count == expected)
        let settled = try #require(server.residentKiB)

        // When the default route goes and comes back four times, each change is read whole by the reader
        for step in 0..<8 {
            if step % 2 == 0 {
                try network.ip("route", "del", "default")
            } else {
                try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
            }
            expected += targets.count
            #expect(reader.waitForLines(expected, timeout: 60).count == expected)
        }

        // Then the reader that never read was dropped, and the one that read is still served
        let writer = open(fifo, O_WRONLY)
        _ = write(writer, "go", 2)
        close(writer)
        let verdict = try #require(stalled.waitForLine(timeout: 30, where: { $0.hasPrefix("{") }))
        #expect(verdict.contains(#""closedByServer": true"#))
        #expect(!reader.lines.contains("END"))

        // And 1,000 silent connections, a slowloris, an oversized request line and non-HTTP bytes are all closed,
        // while a well-behaved client is answered beside them and after them
        let hostile = try server.python("hostile", [server.address, "2", "1000"])
        #expect(hostile["silentOpened"] as? Int == 1000)
        #expect(hostile["answeredBesideSilent"] as? Int == 200)
        #expect(hostile["silentClosed"] as? Int == 1000)
        let slowloris = try #require(hostile["slowlorisClosedAfter"] as? Double)
        #expect(slowloris >= 1.5 && slowloris < 5)
        #expect((hostile["oversizedAnswer"] as? String)?.hasPrefix("HTTP/1.1 4") == true)
        #expect(hostile["oversizedClosed"] as? Bool == true)
        #expect(hostile["garbageAnswer"] as? String == "HTTP/1.1 400 Bad Request")
        #expect(hostile["garbageClosed"] as? Bool == true)
        #expect(hostile["answeredAfter"] as? Int == 200)

        // Its memory stayed within the bound the README states for 1,000 targets (a plain build's figure: under a
        // sanitizer, memory is mostly the sanitizer's)
        let resident = try #require(server.residentKiB)
        if Sanitizer.current == nil {
            #expect(resident < 64 * 1024, "resident \(resident) KiB")
            #expect(resident - settled < 16 * 1024, "resident \(resident) KiB, \(settled) KiB once settled")
        }

        // And its own counters say why it closed connections
        let closed = try server.samples(of: "reach_serve_closed_connections_total")
        func count(_ reason: String) -> Double { closed.first { $0.labels["reason"] == reason }?.value ?? 0 }
        #expect(count("slowReader") == 1)
        #expect(count("timeout") >= 2)
        #expect(count("limit") >= 800)

        // And a stream whose reader stopped reading holds SIGTERM's stop up for the stop's grace of a second, not the
        // request timeout (2 s here)
        let secondFifo = fifo + "-2"
        #expect(mkfifo(secondFifo, 0o600) == 0)
        defer { unlink(secondFifo) }
        let stalledAgain = LineCollector()
        _ = try network.start(
            ["/usr/bin/python3", "-u", "-c", ServeClient.script, "nonreader", server.address, secondFifo],
            output: stalledAgain.pipe)
        #expect(stalledAgain.waitForLine(where: { $0 == "connected" }) != nil)
        #expect(
            eventually(timeout: 10) { (try? server.samples(of: "reach_serve_event_streams"))?.first?.value == 2 })
        let stopping = Date()
        #expect(server.stop() == .exited(0))
        let took = Date().timeIntervalSince(stopping)
        #expect(took >= 0.9 && took < (Sanitizer.current == nil ? 1.9 : 4), "a stop took \(took) s")
    }

    @Test(.ownThread(alone: true))  // its bounds are timings, which other blocking tests skew
    func routeChurnOn1000TargetsNeverBuildsABacklogAndTheFinalStateIsServedAtOnce() throws {
        // Given 1,000 address targets behind the default route (and the internet)
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let targets = ["internet"] + (0..<1000).map { "10.\($0 / 250).\($0 % 250).1" }
        let server = try ServeClient(targets, in: network)
        let settled = try #require(server.process.peakResidentKiB)
        let events = LineCollector()
        _ = try server.startEventReader(into: events)

        // When the default route is deleted and added again 25 times a second for 30 s, while a client scrapes
        // every 100 ms
        let churn = try network.start([
            "/bin/sh", "-c",
            """
            end=$(($(date +%s) + 30))
            while [ "$(date +%s)" -lt "$end" ]; do
                ip route del default; sleep 0.04; ip route add default via \(TestNetwork.gatewayIPv4); sleep 0.04
            done
            """,
        ])
        // A scrape may take 10 s in a plain build, 60 s under a sanitizer, whose time is mostly its own
        let scraped = try server.python("churnscrape", [server.address, "30", Sanitizer.current == nil ? "10" : "60"])
        _ = churn.wait()

        // Then every scrape was answered in time, the next change (the route gone) is served at once, memory stays
        // bounded, and SIGTERM ends it at once
        let latencies = (scraped["latencies"] as? [Double] ?? []).sorted()
        let p99 = latencies.isEmpty ? .infinity : latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        // Under ThreadSanitizer one scrape in about fifty was seen to stall 10.5 s (p50 0.05 s): its own pauses, which
        // the plain build's p99 bound does not allow. There the bound is on p95.
        let p95 = latencies.isEmpty ? .infinity : latencies[min(latencies.count - 1, latencies.count * 95 / 100)]
        try network.ip("route", "del", "default")
        let final = try server.python("settle", [server.address, "0", "30"])["seconds"] as? Double
        let peak = try #require(server.process.peakResidentKiB)
        // And a stream heard each target's latest state, a bounded number of times, ending with the last one
        let heard = events.linesAfterQuiet().dropFirst().filter { field($0, "target") == "internet" }
        #expect(heard.last.flatMap { field($0, "status") } == "notReachable")
        #expect(heard.count <= 30 * 10 + 5, "at most one state a turn, ten turns a second")
        let stopping = Date()
        let ended = server.stop()
        let stopSeconds = Date().timeIntervalSince(stopping)
        print(
            "churn: \(latencies.count) scrapes, \(scraped["failures"] ?? 0) failed, p50 \(latencies.isEmpty ? 0 : latencies[latencies.count / 2]) s, "
                + "p99 \(p99) s; the next change served after \(final ?? -1) s; peak \(settled) -> \(peak) KiB; "
                + "SIGTERM to exit \(stopSeconds) s"
        )
        let plain = Sanitizer.current == nil  // under a sanitizer, time and memory are mostly its own
        #expect(scraped["failures"] as? Int == 0 && latencies.count >= (plain ? 150 : 20))
        #expect(ended == .exited(0))
        #expect(plain ? p99 < Self.churnScrapeBound : p95 < 10)
        #expect((final ?? .infinity) < (plain ? Self.churnSettleBound : 10))
        #expect(stopSeconds < 5)
        if plain { #expect(peak < Self.churnMemoryBoundKiB) }
    }

    /// The bounds the churn test holds `reach serve` to (plain builds): a scrape's p99, the time from the next change
    /// to its state in `/metrics` (at most a turn and a pass: 0.1 s), and peak resident memory (the README's 64 MiB).
    /// A scrape's p99 is 0.01 s for a release build alone (`scripts/bench-serve --churn`), and 0.02 to 1.3 s for this
    /// debug build among the other suites on two cores; a backlog made it seconds to a minute.
    static let churnScrapeBound = 2.5
    static let churnSettleBound = 1.0
    static let churnMemoryBoundKiB = 64 << 10
}
