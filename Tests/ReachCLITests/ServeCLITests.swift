import Foundation
import Testing
import TestSupport

/// `reach serve` on the host's loopback: the exposition read by Prometheus' own parser, the endpoints, the
/// answers to what is not served, and the stop on SIGTERM and SIGINT.
@Suite(.ownThread)
struct ServeCLITests {
    private static let targets = ["internet", "127.0.0.1", "::1", "localhost", "192.0.2.1"]

    @Test func theExpositionParsesWithPrometheusRulesAndSaysEachTargetsStateOnce() throws {
        let server = try ServeClient(Self.targets)
        defer { server.stop() }
        // Once the host name's first resolution has ended (until then its state is `unknown`), nothing changes
        #expect(eventually { (try? server.request("/status").body.contains(#""unknown""#)) == false })
        let exposition = try server.python("exposition", [server.address])
        #expect(exposition["problems"] as? [String] == [])
        #expect(exposition["contentType"] as? String == "text/plain; version=0.0.4; charset=utf-8")
        let families = exposition["families"] as? [String: String] ?? [:]
        for (family, type) in [
            ("reach_target_reachable", "gauge"), ("reach_target_status", "gauge"), ("reach_target_flags", "gauge"),
            ("reach_target_info", "gauge"), ("reach_target_last_change_timestamp_seconds", "gauge"),
            ("network_reachability_deliveries", "counter"), ("network_reachability_evaluations", "counter"),
            ("network_reachability_resynchronizations", "counter"), ("network_reachability_dropped_messages", "counter"),
            ("network_reachability_change_to_delivery_seconds", "histogram"), ("process_cpu_seconds", "counter"),
            ("process_resident_memory_bytes", "gauge"), ("process_open_fds", "gauge"), ("process_start_time_seconds", "gauge"),
            ("reach_serve_connections", "gauge"), ("reach_serve_closed_connections", "counter"),
        ] {
            #expect(families[family] == type, "\(family)")
        }
        #expect(families["reach_target_validation"] == nil)  // only with --validate

        let samples = ServeClient.samples(in: exposition)
        // The process_* values come from /proc: the server started in the last few minutes, and it holds memory
        let now = Date().timeIntervalSince1970
        let started = samples.first { $0.name == "process_start_time_seconds" }?.value ?? 0
        #expect(started > now - 600 && started <= now + 1, "started \(started), now \(now)")
        #expect((samples.first { $0.name == "process_resident_memory_bytes" }?.value ?? 0) > 1_000_000)
        // Standard input, output and error, the listening socket and netlink's at least; not the one reading /proc
        #expect((samples.first { $0.name == "process_open_fds" }?.value ?? 0) >= 5)
        // Families in name order: two scrapes, and two hosts, list them alike
        let text = try server.request("/metrics").body
        let typed = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        #expect(typed == typed.sorted() && typed.count > 10, "\(typed)")
        let build = try #require(samples.first { $0.name == "reach_build_info" })
        #expect(build.labels["os"] == "linux" && build.labels["swift_version"]?.hasPrefix("6.") == true)
        #expect(["amd64", "arm64"].contains(build.labels["arch"] ?? "") && build.labels["version"]?.isEmpty == false)
        // The commit it was built from, as this checkout's Git says it (the BuildRevision plugin)
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let head = try Command.run(["git", "-C", root.path, "rev-parse", "HEAD"], check: true).standardOutput
        #expect(build.labels["revision"] == head.trimmingCharacters(in: .whitespacesAndNewlines), "\(build.labels)")
        let status = try server.request("/status")
        let records = try #require(
            try JSONSerialization.jsonObject(with: Data(status.body.utf8)) as? [[String: Any]])
        for target in Self.targets {
            let mine = samples.filter { $0.labels["target"] == target }
            let record = try #require(records.first { $0.string("target") == target })
            let reachable = record.string("status") == "reachable"
            #expect(mine.filter { $0.name == "reach_target_reachable" }.map(\.value) == [reachable ? 1 : 0], "\(target)")
            let statuses = mine.filter { $0.name == "reach_target_status" }
            #expect(statuses.count == 3)
            #expect(statuses.filter { $0.value == 1 }.map { $0.labels["status"] } == [record.string("status")], "\(target)")
            let flags = mine.filter { $0.name == "reach_target_flags" }
            #expect(flags.count == 7, "all but connectionOnTraffic and connectionOnDemand, which are never set here")
            #expect(
                Set(flags.filter { $0.value == 1 }.compactMap { $0.labels["flag"] }) == Set(record["flags"] as? [String] ?? []))
            let info = mine.filter { $0.name == "reach_target_info" }
            #expect(info.count == 1)
            #expect(info.first?.labels["interface"] == (record.interface("name") as? String ?? ""))
            #expect(info.first?.labels["gateway"] == (record.string("gateway") ?? ""))
            #expect(mine.contains { $0.name == "reach_target_last_change_timestamp_seconds" && $0.value > 1_700_000_000 })
        }
    }

    @Test func statusIsWhatReachStatusPrintsForEachTargetInOrder() throws {
        let server = try ServeClient(Self.targets)
        defer { server.stop() }
        // Once the host name's first resolution has ended, as `reach status` waits for it
        #expect(eventually { (try? server.request("/status").body.contains(#""unknown""#)) == false })
        let answer = try server.request("/status")
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"] == "application/json")
        let records = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [[String: Any]])
        #expect(records.map { $0.string("target") } == Self.targets)
        for record in records {
            let target = try #require(record.string("target"))
            let printed = try ReachBinary.run(["status", target, "--json"])
            let alone = try #require(
                try JSONSerialization.jsonObject(with: Data(printed.standardOutput.utf8)) as? [String: Any])
            #expect(Set(record.keys) == Set(alone.keys), "\(target)")
            for key in ["status", "flagsString", "gateway", "connection"] {
                #expect(record[key] as? String == alone[key] as? String, "\(target) \(key)")
            }
        }
    }

    @Test func whatIsNotServedIs404AndOtherMethods405AndHEADHasNoBody() throws {
        let server = try ServeClient(["127.0.0.1"])
        defer { server.stop() }
        for path in ["/index.html", "/metric", "/metrics/x", "/status.json", "/../metrics"] {
            #expect(try server.request(path).status == 404, "\(path)")
        }
        for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
            let answer = try server.request("/metrics", method: method)
            #expect(answer.status == 405, "\(method)")
            #expect(answer.headers["allow"] == "GET, HEAD")
        }
        let head = try server.request("/metrics", method: "HEAD")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(Int(head.headers["content-length"] ?? "") ?? 0 > 0)
        // A query string names the same endpoint
        #expect(try server.request("/metrics?name[]=reach_target_reachable").status == 200)
        let events = try server.request("/events", method: "HEAD")
        #expect(events.status == 200)
        #expect(events.headers["content-type"] == "text/event-stream")
    }

    /// node_exporter's `--web.listen-address` (repeated), `--web.telemetry-path` and `--web.max-requests`.
    @Test func itListensOnEveryAddressGivenServesTheMetricsPathAndBoundsScrapesInFlight() throws {
        let targets = (1...400).map { "198.18.\($0 / 200).\($0 % 200 + 1)" }
        let server = try ServeClient(
            targets + ["--listen", "127.0.0.2:0", "--metrics-path", "/probe", "--max-requests", "1", "--all-flags"])
        defer { server.stop() }
        // The client returns at the first address's line; the second's is written just after it.
        let first = server.errors.lines.firstIndex { $0.contains("serving http://") } ?? 0
        _ = server.errors.waitForLine(after: first + 1) { $0.contains("serving http://") }
        let lines = server.errors.lines.filter { $0.contains("serving http://") }
        #expect(lines.count == 2 && lines.allSatisfy { $0.hasSuffix("/probe, /status and /events") }, "\(lines)")
        let other = try #require(lines.last.flatMap { $0.split(separator: "/").dropFirst().first }.map(String.init))
        #expect(server.address.hasPrefix("127.0.0.2:") && other.hasPrefix("127.0.0.1:"))
        #expect(try server.request("/metrics").status == 404)
        let probe = try server.request("/probe")
        #expect(probe.status == 200 && probe.body.utf8.count > 256 << 10, "an answer larger than a socket holds")
        let flags = probe.body.split(separator: "\n").filter { $0.hasPrefix(#"reach_target_flags{target="198.18.0.2""#) }
        #expect(flags.count == 9 && flags.contains { $0.contains(#"flag="connectionOnDemand""#) }, "--all-flags: \(flags)")
        #expect(try server.request("/").body.contains(#"<a href="/probe">"#))
        // One scrape whose client does not read holds the only place: a second is told 503, and the place comes
        // back when the first is gone
        let held = try server.python("holdscrape", [server.address, other, "/probe"])
        #expect(held["beside"] as? Int == 503 && held["after"] as? Int == 200, "\(held)")
        for wrong in ["metrics", "/status", "/a b", "/\"x"] {
            let refused = try ReachBinary.run(["serve", "--metrics-path", wrong])
            #expect(refused.status == 64 && refused.standardError.contains("--metrics-path must be"), "\(wrong)")
        }
    }

    /// node_exporter's `--log.format` and `--log.level`: one line a message, with `time`, `level` and `msg`.
    @Test func theLogIsJSONOrLogfmtAtTheLevelAsked() throws {
        let json = try ServeClient(["127.0.0.1", "--log-format", "json"])
        defer { json.stop() }
        let line = try #require(json.errors.lines.first { $0.contains("serving http") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], "\(line)")
        #expect(object["level"] == "info" && object["msg"]?.hasPrefix("serving http://") == true, "\(object)")
        #expect(object["time"]?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(object)")
        _ = try json.request("/status")
        #expect(!json.errors.lines.contains { $0.contains("GET /status") }, "no debug line at info")

        let logfmt = try ServeClient(["127.0.0.1", "--log-format", "logfmt", "--log-level", "debug"])
        defer { logfmt.stop() }
        #expect(logfmt.errors.lines.contains { $0.contains(#" level=info msg="serving http://"#) })
        _ = try logfmt.request(#"/status?a="b"#)
        let debug = logfmt.errors.waitForLine(after: 0) { $0.contains("GET /status") }
        #expect(debug?.contains(#" level=debug msg="GET /status?a=\"b 200, "#) == true, "\(debug ?? "none")")

        // A failure to start is a line of the format too, once its options are read
        let refused = try ReachBinary.run(["serve", "--log-format", "json", "--web-config", "/nonexistent"])
        #expect(refused.status == 64, "\(refused)")
        let failure = try JSONSerialization.jsonObject(with: Data(refused.standardError.utf8)) as? [String: String]
        #expect(failure?["level"] == "error" && failure?["msg"] == "web configuration /nonexistent: cannot be read: No such file or directory", "\(refused)")
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aStopSignalEndsTheStreamsAndExitsZero(signal: Int32) throws {
        let server = try ServeClient(["127.0.0.1"])
        let lines = LineCollector()
        let reader = try server.startEventReader(into: lines)
        #expect(lines.waitForLines(2).count == 2)
        #expect(lines.lines.first == "STATUS 200 text/event-stream")
        #expect(server.stop(signal) == .exited(0))
        // The stream ended with its last chunk: the reader saw a whole response and its end
        #expect(reader.wait() == .exited(0))
        #expect(lines.lines.last == "END")
    }

    @Test func anAddressInUseIsOneLineAndExit70() throws {
        let server = try ServeClient(["127.0.0.1"])
        defer { server.stop() }
        let result = try ReachBinary.run(["serve", "127.0.0.1", "--listen", server.address])
        #expect(result.status == 70)
        #expect(result.standardOutput.isEmpty)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first == "reach: cannot listen on \(server.address): Address already in use", "\(lines)")
    }
}

/// The files under `Examples/` that a fleet copies: Prometheus' own `promtool` checks the scrape configuration and
/// runs the alerting rule against series that go to 0; `systemd-analyze` rates the unit's hardening, and the web
/// configuration is one `reach serve` reads.
@Suite(.ownThread)
struct ServeExamplesTests {
    private static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/prometheus")

    @Test func theScrapeConfigurationIsValid() throws {
        // Its syntax only: the TLS job names certificates a fleet has and a test does not.
        let result = try Command.run([
            "promtool", "check", "config", "--syntax-only", Self.examples.appendingPathComponent("prometheus.yml").path,
        ])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
    }

    @Test func theUnitIsHardenedToAtMost2Point5AndItsWebConfigurationIsRead() throws {
        let unit = Self.examples.deletingLastPathComponent().appendingPathComponent("systemd/reach-serve.service").path
        let rated = try Command.run(["systemd-analyze", "security", "--offline=yes", "--threshold=25", unit])
        let overall = rated.standardOutput.split(separator: "\n").first { $0.contains("Overall exposure level") } ?? ""
        #expect(rated.status == 0, "\(overall)\(rated.standardError)")
        // The example's web configuration is one reach reads: only its certificates are missing here
        let web = Self.examples.deletingLastPathComponent().appendingPathComponent("systemd/web.yml").path
        let served = try ReachBinary.run(["serve", "--web-config", web])
        #expect(served.status == 64 && served.standardError.contains("cannot read the certificate"), "\(served.standardError)")
    }

    @Test func theAlertFiresForATargetDownTwoMinutesAndNotForOneDownOneMinute() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nrt-promtool-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tests = folder.appendingPathComponent("reach-alerts.test.yml")
        // One sample a minute: "kiosk" loses the internet at minute 2 for good, "gateway" for one minute only
        try """
        rule_files:
          - \(Self.examples.appendingPathComponent("reach-alerts.yml").path)
        evaluation_interval: 1m
        tests:
          - interval: 1m
            input_series:
              - series: 'reach_target_reachable{instance="kiosk", target="internet"}'
                values: '1 1 0 0 0 0 0'
              - series: 'reach_target_reachable{instance="gateway", target="internet"}'
                values: '1 1 0 1 1 1 1'
            alert_rule_test:
              - eval_time: 3m
                alertname: TargetNotReachable
                exp_alerts: []
              - eval_time: 5m
                alertname: TargetNotReachable
                exp_alerts:
                  - exp_labels: {severity: warning, instance: kiosk, target: internet}
                    exp_annotations:
                      summary: kiosk cannot reach internet
                      description: >-
                        reach serve on kiosk has said for 2 minutes that no packet can leave toward internet (see
                        reach_target_status and reach_target_flags for why).
        """.write(to: tests, atomically: true, encoding: .utf8)
        let result = try Command.run(["promtool", "test", "rules", tests.path])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
    }
}
