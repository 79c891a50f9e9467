import Foundation
import Testing
import TestSupport

/// `reach serve --web-config` when clients and reloads turn hostile: TLS clients that never read stay within the
/// connection bound, a reload never takes TLS or the passwords away, a rotated password stops at once on a kept-alive
/// connection, a flood of wrong passwords makes a right one wait (503), never look wrong (401), an unknown user takes
/// as long as a known one, plain HTTP to the TLS port is told so, and a key that is not the certificate's is named.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread(timeLimit: .seconds(180)))
struct ServeFailsClosedInNamespaceTests {
    /// A server's web configuration: TLS with the test's certificate, and the user `prometheus` when a hash is given.
    private static func webConfiguration(users hash: String?) -> String {
        """
        tls_server_config:
          cert_file: server.crt
          key_file: server.key
        """ + (hash.map { "\nbasic_auth_users:\n  prometheus: \($0)\n" } ?? "\n")
    }

    @Test func tlsClientsThatNeverReadStayWithinTheConnectionBoundAndPlainHTTPIsTold() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let web = certificates.path("web.yml")
        try Self.webConfiguration(users: nil).write(toFile: web, atomically: true, encoding: .utf8)
        // The issue's attack, 2,000 against 256, in a plain build; 400 against 64 under a sanitizer, whose handshakes
        // are many times slower
        let (clients, bound) = Sanitizer.current == nil ? (2000, 256) : (400, 64)
        let server = try ServeClient(["internet", "--web-config", web, "--max-connections", "\(bound)"], in: network)
        defer { server.stop() }

        // Clients that finish a TLS handshake, never read, and come back as soon as they are closed
        let deaf = try server.python("deaf", [server.address, certificates.path("ca.crt"), "\(clients)", "5"])
        let resident = server.residentKiB ?? .max
        print("\(clients) deaf TLS clients against \(bound): \(deaf); the server's memory after: \(resident) KiB")
        #expect((deaf["opened"] as? Int ?? 0) > clients, "the bound closed some and they came back: \(deaf)")
        #expect((deaf["connections"] as? Double ?? .infinity) <= Double(bound + 1), "\(deaf)")
        #expect((deaf["descriptors"] as? Double ?? .infinity) <= Double(bound + 48), "\(deaf)")
        // A scrape at the bound is never the connection cut to make room: the deaf ones are idle longer
        #expect((deaf["scrapes"] as? Int ?? 0) >= 10 && deaf["failedScrapes"] as? Int == 0, "\(deaf)")
        if Sanitizer.current == nil { #expect(resident < 64 * 1024) }  // a sanitizer's memory is mostly its own

        // Ten that pipeline scrapes and never read hold one answer each, not every answer they asked for
        let piled = try server.python(
            "tlspipeliners", [server.address, certificates.path("ca.crt"), "10", "3", "\(server.process.pid)"])
        print("10 TLS clients pipelining /metrics without reading: \(piled)")
        #expect((piled["sent"] as? Int ?? 0) > 1000, "\(piled)")
        if Sanitizer.current == nil {
            #expect((piled["during"] as? Int ?? .max) - (piled["before"] as? Int ?? 0) < 16 * 1024, "\(piled)")
        }

        // A key that is not the certificate's is named as such
        let mismatched = certificates.path("mismatched.yml")
        try "tls_server_config:\n  cert_file: server.crt\n  key_file: client.key\n".write(
            toFile: mismatched, atomically: true, encoding: .utf8)
        let refused = try ReachBinary.run(["serve", "--web-config", mismatched])
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.standardError.contains("client.key is not the key of the certificate \(certificates.path("server.crt"))"))

        // Plain HTTP to the TLS port: a 400 that says why
        let plain = try server.python("plainontls", [server.address])["answer"] as? String ?? ""
        #expect(plain.hasPrefix("HTTP/1.1 400 Bad Request\r\n") && plain.hasSuffix("Client sent an HTTP request to an HTTPS server.\n"))

        // Both counted in the server's own series, as a failed handshake of its kind
        _ = try server.python("badhello", [server.address])
        func failures(_ reason: String) throws -> Double? {
            try server.python(
                "tlsseries", [server.address, certificates.path("ca.crt"), "-", "-", #"reach_serve_tls_handshake_failures_total{reason="\#(reason)"}"#]
            )["value"] as? Double
        }
        #expect(try failures("plainHTTP") == 1)
        #expect(try failures("handshake") ?? 0 >= 1)
    }

    @Test func aReloadNeverOpensTheServerAndARotatedOrFloodedPasswordFailsClosed() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let (web, ca) = (certificates.path("web.yml"), certificates.path("ca.crt"))
        try Self.webConfiguration(users: WebConfigurationTests.secretHash).write(toFile: web, atomically: true, encoding: .utf8)
        let server = try ServeClient(["internet", "--web-config", web], in: network)
        defer { server.stop() }
        /// The series' value, and what the scrape got (a status and the value) to say when it is not the one expected.
        func reloadSuccessful(_ password: String = "secret") throws -> (Double?, String) {
            let scrape = try server.python(
                "tlsseries", [server.address, ca, "prometheus", password, "reach_serve_web_config_last_reload_successful"])
            return (scrape["value"] as? Double, "\(scrape); stderr: \(server.errors.lines.suffix(4))")
        }
        func reload(_ text: String, saying expected: String) throws {
            try text.write(toFile: web, atomically: true, encoding: .utf8)
            let seen = server.errors.lines.count
            server.process.send(SIGHUP)
            #expect(server.errors.waitForLine(after: seen) { $0.contains(expected) } != nil, "\(server.errors.lines.suffix(3))")
        }
        var (successful, scrape) = try reloadSuccessful()
        #expect(successful == 1, "\(scrape)")

        // An empty file (a write cut short) and one without TLS or users are refused: still TLS, still the password
        try reload("", saying: "has no tls_server_config, so it would serve plain HTTP")
        try reload(Self.webConfiguration(users: nil), saying: "has no basic_auth_users, so it would serve anyone")
        (successful, scrape) = try reloadSuccessful()
        #expect(successful == 0, "\(scrape)")
        #expect(try server.python("tlsseries", [server.address, ca, "prometheus", "wrong", "x"])["status"] as? Int == 401)
        try reload(Self.webConfiguration(users: WebConfigurationTests.secretHash), saying: "read \(web) again")
        (successful, scrape) = try reloadSuccessful()
        #expect(successful == 1, "\(scrape)")

        // A rotated password stops at once on a connection kept alive from before; an unknown user's answer takes
        // as long as a known user's wrong password (both a bcrypt check)
        let changed = certificates.path("changed.yml")
        try Self.webConfiguration(users: try ServeClient.bcrypt("renewed")).write(toFile: changed, atomically: true, encoding: .utf8)
        let rotated = try server.python(
            "rotate", [server.address, ca, "prometheus", "secret", "renewed", "\(server.process.pid)", web, changed])
        print("a rotated password on a kept-alive connection: \(rotated)")
        #expect(rotated["before"] as? Int == 200 && rotated["after"] as? Int == 401 && rotated["new"] as? Int == 200)
        let (unknown, known) = (rotated["unknownSeconds"] as? Double ?? 0, rotated["knownSeconds"] as? Double ?? 1)
        #expect(unknown >= known / 2, "an unknown user in \(unknown) s, a known one in \(known) s")

        // Rotated again, and flooded with wrong passwords from more clients than checks may wait: the new password, not
        // yet checked, is answered 200 or 503 (try again), never 401
        try reload(Self.webConfiguration(users: try ServeClient.bcrypt("third")), saying: "read \(web) again")
        let flood = try server.python("authflood", [server.address, ca, "-", "-", "prometheus", "third", "wrong", "48"])
        print("a new password beside a flood of wrong ones: \(flood)")
        let statuses = flood["statuses"] as? [Int] ?? []
        #expect(statuses.count == 10 && statuses.allSatisfy { $0 == 200 || $0 == 503 }, "\(flood)")
        #expect((flood["wrong"] as? [String: Int])?["503"] ?? 0 > 0, "the flood passed the checks that may wait: \(flood)")
        let busy = try server.python(
            "tlsseries", [server.address, ca, "prometheus", "third", #"reach_serve_password_checks_total{outcome="busy"}"#])
        #expect(busy["value"] as? Double ?? 0 > 0, "\(busy)")
        let refused = try server.python(
            "tlsseries", [server.address, ca, "prometheus", "third", #"reach_serve_http_requests_total{path="/metrics",code="401"}"#])
        #expect(refused["value"] as? Double ?? 0 > 0, "\(refused)")

        // Rotated by editing the file alone (no SIGHUP, no new connection): the kept-alive connection's next request
        // reads it, as exporter-toolkit reads the file per request
        let fourth = certificates.path("fourth.yml")
        try Self.webConfiguration(users: try ServeClient.bcrypt("fourth")).write(toFile: fourth, atomically: true, encoding: .utf8)
        let edited = try server.python("rotate", [server.address, ca, "prometheus", "third", "fourth", "0", web, fourth])
        #expect(edited["before"] as? Int == 200 && edited["after"] as? Int == 401 && edited["new"] as? Int == 200, "\(edited)")
    }

    @Test(.ownThread(alone: true))  // its bound is a timing, which other blocking tests skew
    func connectionsThatPipelineWithoutEndTakeTheirTurnBesideAScraper() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let targets = ["internet"] + (0..<49).map { "10.77.0.\($0 + 1)" }
        let server = try ServeClient(targets, in: network)
        defer { server.stop() }
        // 100 scrapes; 40 under a sanitizer, where each takes about a second and 100 came near the time limit
        let scrapes = Sanitizer.current == nil ? 100 : 40
        let pipelined = try server.python("pipeliners", [server.address, "8", "\(scrapes)"])
        print("8 connections pipelining /metrics without end beside a scraper: \(pipelined)")
        // Each connection holds one of --max-requests (40) at a time, however many answers it has not read yet:
        // none is refused 503, neither theirs nor the scraper's, and none of them was ended
        #expect((pipelined["pipelinedAnswers"] as? Int ?? 0) > (Sanitizer.current == nil ? 1000 : 50), "\(pipelined)")
        #expect(pipelined["pipelined503"] as? Int == 0, "\(pipelined)")
        #expect(pipelined["statuses"] as? [String: Int] == ["200": scrapes], "\(pipelined)")
        #expect(pipelined["ended"] as? Int == 0, "\(pipelined)")
        // Well within Prometheus' 10 s timeout, which they pushed scrapes past: the issue's p99 under 1 s (0.17 to
        // 0.32 s on this machine), 5 s under a sanitizer
        #expect((pipelined["p99"] as? Double ?? .infinity) < (Sanitizer.current == nil ? 1 : 5), "\(pipelined)")
    }

    /// 300 `/events` readers that read slowly, on 50 targets whose route flaps: each stream holds at most about twice
    /// its backlog (64 KiB and 1 KiB a target), readers that stay behind are dropped, memory goes back once they
    /// are, and scrapes beside them stay well within Prometheus' timeout.
    @Test(.ownThread(alone: true))  // its bounds are memory and timings, which other blocking tests skew
    func threeHundredSlowEventReadersOnFiftyTargetsStayBoundedAndGiveTheirMemoryBack() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let targets = ["internet"] + (0..<49).map { "10.77.0.\($0 + 1)" }
        let server = try ServeClient(
            targets + ["--max-streams", "400", "--max-connections", "512", "--request-timeout", "3"], in: network)
        defer { server.stop() }
        let settled = try #require(server.residentKiB)
        let churn = try network.start([
            "/bin/sh", "-c",
            """
            end=$(($(date +%s) + 12))
            while [ "$(date +%s)" -lt "$end" ]; do
                ip route del default; sleep 0.1; ip route add default via \(TestNetwork.gatewayIPv4); sleep 0.1
            done
            """,
        ])
        let readers = try server.python("slowreaders", [server.address, "300", "10"])
        _ = churn.wait()
        let peak = try #require(server.process.peakResidentKiB)
        #expect(
            eventually(timeout: 20) { (try? server.samples(of: "reach_serve_event_streams"))?.first?.value == 0 },
            "every stream closed")
        // Memory goes back to the system within a second of the last stream's end
        if Sanitizer.current == nil { _ = eventually(timeout: 5) { (server.residentKiB ?? .max) - settled < 16 * 1024 } }
        let after = try #require(server.residentKiB)
        let dropped = try server.samples(of: "reach_serve_closed_connections_total").first { $0.labels["reason"] == "slowReader" }
        print("300 slow /events readers on 50 targets: \(readers); \(dropped?.value ?? 0) dropped; resident \(settled) KiB settled, \(peak) KiB at the peak, \(after) KiB after")
        // Every stream opened. Under a sanitizer on a loaded machine (the whole suite's three runs on two cores) a
        // turn of the server's loop can outlast the 3 s request timeout this test sets, and a connection whose
        // request and answer miss it is closed unanswered, as it should be: a few such are allowed there, never a
        // stream refused.
        let unanswered = (readers["unanswered"] as? [String])?.count ?? .max
        #expect(readers["refused"] as? Int == 0 && unanswered <= (Sanitizer.current == nil ? 0 : 3), "\(readers)")
        #expect(readers["opened"] as? Int == 300 - unanswered, "\(readers)")
        #expect(dropped?.value ?? 0 > 0, "readers behind for 3 s were dropped")
        // Scrapes beside them: 0.7 to 0.9 s at p99 in a debug build here (1.6 s before each step was bounded by its
        // events); 2 s allowed, well within Prometheus' 10 s timeout
        #expect((readers["p99"] as? Double ?? .infinity) < (Sanitizer.current == nil ? 2 : 10), "\(readers)")
        if Sanitizer.current == nil {  // a sanitizer's memory is mostly its own
            // 300 streams of at most twice 114 KiB each: 67 MiB, where 627 MiB was reached
            #expect(peak - settled < 80 * 1024, "peak \(peak) KiB, settled \(settled) KiB")
            #expect(after - settled < 16 * 1024, "after \(after) KiB, settled \(settled) KiB")
        }
    }

}
