import Foundation
import Testing
import TestSupport

/// `reach serve` as an attacker and an operator try it (on loopback): half-sent requests and answers nobody takes
/// never hold a scraper out, the exposition is what Prometheus' own tools accept (HELP, gzip), SIGHUP is harmless,
/// and a closed standard descriptor is never taken by an internal one.
@Suite(.ownThread(timeLimit: .seconds(180)))
struct ServeHardeningTests {
    /// 1,001 address targets: an exposition of about 1 MiB.
    private static let manyTargets = ["internet"] + (0..<1000).map { "10.\($0 / 250).\($0 % 250).1" }

    @Test func requestsThatAnnounceABodyAreAnsweredAtOnceAndNeverHoldAScraperOut() throws {
        // Given a server of 32 connections, and 64 clients that each send a whole head announcing 1,000,000 bytes
        // of body, never send it, and come back as soon as they are closed
        let server = try ServeClient(["--max-connections", "32"])
        defer { server.stop() }
        let result = try server.python("halfsent", [server.address, "64", "40"])
        // Then each is answered 400 at once, and every one of 40 scrapes beside them is answered
        #expect(result["scrapesAnswered"] as? Int == 40, "\(result)")
        #expect(result["halfSentAnsweredWith"] as? [String] == ["HTTP/1.1 400 Bad Request"])
        print("half-sent: \(result["halfSentAnswers"] ?? 0) refused, 40 scrapes in \(result["seconds"] ?? 0) s")
    }

    @Test func answersNobodyTakesMakeRoomForANewScrapeOldestFirst() throws {
        // Given a server of 16 connections with 1,001 targets, and 16 clients that ask for the exposition and never
        // read it
        let server = try ServeClient(Self.manyTargets + ["--max-connections", "16"])
        defer { server.stop() }
        // Then a new client is still answered: the oldest unanswered connection made room
        #expect(try server.python("stalled", [server.address, "16"])["answered"] as? Int == 200)
        let closed = try server.samples(of: "reach_serve_closed_connections_total").first { $0.labels["reason"] == "limit" }
        #expect((closed?.value ?? 0) >= 1)
    }

    @Test func promtoolAcceptsTheExpositionEveryFamilyHasHelpAndGzipIsUsedWhenAsked() throws {
        let server = try ServeClient(["internet", "127.0.0.1"])
        defer { server.stop() }
        let text = try server.python("text", [server.address])["text"] as? String ?? ""
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("nrt-exposition-\(UUID())")
        try text.write(to: input, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: input) }
        let checked = try Command.run(["/bin/sh", "-c", "promtool check metrics < \"$0\"", input.path])
        #expect(checked.status == 0, "\(checked.standardOutput)\(checked.standardError)")
        let typed = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        let described = text.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }.map { $0.split(separator: " ")[2] }
        #expect(Set(typed) == Set(described) && typed.count > 10)
        #expect(text.contains(#"reach_build_info{version=""#))

        // When asked with gzip, as Prometheus asks, the answer is compressed and holds the same series
        let compressed = try server.python("compressed", [server.address])
        #expect(compressed["encoding"] as? String == "gzip" && compressed["sameSeries"] as? Bool == true)
        #expect((compressed["bytes"] as? Int ?? .max) < (compressed["plainBytes"] as? Int ?? 0) / 3)
        // And an event stream is never compressed; the landing page links the endpoints
        let landing = try server.request("/")
        #expect(landing.status == 200 && landing.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(["/metrics", "/status", "/events"].allSatisfy { landing.body.contains("href=\"\($0)\"") })
    }

    @Test func listeningBeyondLoopbackWithoutTLSOrAuthenticationIsWarnedOf() throws {
        let open = try ServeClient(["internet"], listening: "0.0.0.0")
        defer { open.stop() }
        #expect(
            open.errors.waitForLine {
                $0.hasPrefix("reach: warning: listening on 0.0.0.0:") && $0.contains("without TLS or authentication")
            } != nil)
        let loopback = try ServeClient(["internet"])
        defer { loopback.stop() }
        #expect(!loopback.errors.lines.contains { $0.contains("warning") })
    }

    @Test func sighupNeitherStopsNorKillsAServerWithoutAWebConfiguration() throws {
        let server = try ServeClient(["internet"])
        server.process.send(SIGHUP)
        #expect(try server.request("/metrics").status == 200)
        #expect(server.stop() == .exited(0))
    }

    @Test func aClosedStandardDescriptorIsNeverTakenByAnInternalOne() throws {
        // `watch` whose stdout is closed ends at once, as when its reader goes
        let watch = try Command.run(["/bin/sh", "-c", "exec \"$0\" watch >&-", ReachBinary.path], timeout: 30)
        #expect(watch.status == 0 && watch.standardError.isEmpty, "\(watch.standardError)")
        // `status` says nothing and ends with its status
        let status = try Command.run(["/bin/sh", "-c", "exec \"$0\" status 127.0.0.1 >&-", ReachBinary.path], timeout: 30)
        #expect(status.status == 0 && status.standardError.isEmpty)
        // `serve` with stderr closed serves: its port is chosen here, since it cannot say which it took
        let port = try Command.run([
            "/usr/bin/python3", "-c",
            "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])",
        ]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let serve = try Subprocess([
            "/bin/sh", "-c", "exec \"$0\" serve --listen 127.0.0.1:\(port) 2>&-", ReachBinary.path,
        ])
        defer { serve.end() }
        let answered = eventually(timeout: 30) {
            (try? Command.run(["/usr/bin/python3", "-c", ServeClient.script, "request", "127.0.0.1:\(port)", "GET", "/metrics"]))?
                .standardOutput.contains(#""status": 200"#) == true
        }
        #expect(answered)
        serve.send(SIGTERM)
        #expect(serve.wait() == .exited(0))
    }
}
