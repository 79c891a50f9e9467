import Foundation
import Testing
import TestSupport

/// `reach serve --web-config` as node_exporter is run: a real Prometheus scrapes it over TLS with a client certificate
/// and a password (and gzip, as it always asks); a client without the certificate or with a wrong password is
/// refused, and SIGHUP makes a renewed certificate and a changed password serve new connections.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread(timeLimit: .seconds(180)))
struct ServeTLSInNamespaceTests {
    @Test func prometheusScrapesOverTLSWithACertificateAndAPasswordAndSighupRereadsTheConfiguration() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let web = certificates.path("web.yml")
        func configure(passwordHash: String) throws {
            try """
            tls_server_config:
              cert_file: server.crt
              key_file: server.key
              client_auth_type: RequireAndVerifyClientCert
              client_ca_file: ca.crt
            basic_auth_users:
              prometheus: \(passwordHash)
            """.write(toFile: web, atomically: true, encoding: .utf8)
        }
        try configure(passwordHash: WebConfigurationTests.secretHash)
        let server = try ServeClient(["internet", "--web-config", web, "--verbose"], in: network)
        defer { server.stop() }
        #expect(server.errors.lines.contains { $0.contains("serving https://") })

        // Given Prometheus scraping it every second over TLS, with its client certificate and password
        let folder = try TestFolder.make("prometheus")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try """
        global:
          scrape_interval: 1s
          scrape_timeout: 1s
        scrape_configs:
          - job_name: reach
            scheme: https
            tls_config:
              ca_file: \(certificates.path("ca.crt"))
              cert_file: \(certificates.path("client.crt"))
              key_file: \(certificates.path("client.key"))
            basic_auth:
              username: prometheus
              password: secret
            static_configs:
              - targets: ['\(server.address)']
        """.write(toFile: "\(folder)/prometheus.yml", atomically: true, encoding: .utf8)
        let prometheus = try network.start([
            "prometheus", "--config.file=\(folder)/prometheus.yml", "--storage.tsdb.path=\(folder)/data",
            "--web.listen-address=127.0.0.1:9090", "--log.level=warn",
        ])
        defer { prometheus.end() }
        // Then it sees the series, asking for gzip as it always does
        let reachable = #"reach_target_reachable{target="internet"}"#
        #expect(try server.python("query", ["127.0.0.1:9090", reachable, "1", "60"])["values"] as? [String] == ["1"])
        #expect(server.errors.lines.contains { $0.contains("GET /metrics 200") && $0.contains("gzip") })

        // And a client without a certificate, or with a wrong password, is refused
        func request(certificate: Bool, password: String) throws -> [String: Any] {
            try server.python(
                "tls",
                [
                    server.address, "/metrics", certificates.path("ca.crt"), certificate ? certificates.path("client.crt") : "-",
                    certificates.path("client.key"), "prometheus", password,
                ])
        }
        #expect(try request(certificate: false, password: "secret")["status"] as? Int == 0)
        #expect(try request(certificate: true, password: "wrong")["status"] as? Int == 401)
        #expect(try request(certificate: true, password: "secret")["server"] as? String == "server")

        // And 16 clients sending wrong passwords as fast as they can (each a bcrypt check of about 50 ms, off the event
        // loop) never hold up a client whose password was checked before
        let flood = try server.python(
            "authflood",
            [
                server.address, certificates.path("ca.crt"), certificates.path("client.crt"), certificates.path("client.key"),
                "prometheus", "secret", "wrong", "16",
            ])
        #expect(flood["statuses"] as? [Int] == Array(repeating: 200, count: 10))
        #expect((flood["slowest"] as? Double ?? .infinity) < (Sanitizer.current == nil ? 1 : 10))
        #expect((flood["wrong"] as? [String: Int])?.keys.sorted() == ["401"], "\(flood)")
        print("wrong passwords: \(flood["wrong"] ?? [:]); the slowest right answer beside them \(flood["slowest"] ?? 0) s")

        // And across reloads: while 48 clients send wrong passwords for 8 s and the file is read again three times
        // (its users unchanged), every scrape of Prometheus, whose password was checked before, is answered: not one
        // 401 (503 at worst under a sanitizer, whose checks are many times slower)
        let refusedBefore = try server.python("query", ["127.0.0.1:9090", #"reach_serve_http_requests_total{path="/metrics",code="401"}"#, "1", "10"])
        #expect(refusedBefore["values"] as? [String] == ["1"], "the one wrong password above: \(refusedBefore)")
        let flooding = try network.start(
            TestPython.command([
                "-c", ServeClient.script, "flood", server.address, certificates.path("ca.crt"), certificates.path("client.crt"),
                certificates.path("client.key"), "prometheus", "wrong", "48", "8",
            ]))
        for _ in 0..<3 {
            Thread.sleep(forTimeInterval: 2)
            try configure(passwordHash: WebConfigurationTests.secretHash)
            let before = server.errors.lines.count
            server.process.send(SIGHUP)
            #expect(server.errors.waitForLine(after: before) { $0.contains("read \(web) again") } != nil)
        }
        #expect(flooding.wait() == .exited(0))
        Thread.sleep(forTimeInterval: 2)  // the scrapes of the flood's last seconds, stored
        let refusedAfter = try server.python("query", ["127.0.0.1:9090", #"reach_serve_http_requests_total{path="/metrics",code="401"}"#, "1", "5"])
        #expect(refusedAfter["values"] as? [String] == ["1"], "Prometheus was told 401: \(refusedAfter)")
        let up = try server.python("history", ["127.0.0.1:9090", "up[10s]"])["values"] as? [String] ?? []
        print("Prometheus' up through a flood of wrong passwords and three reloads: \(up)")
        #expect(up.count >= 7, "\(up)")
        if Sanitizer.current == nil { #expect(up.allSatisfy { $0 == "1" }, "\(up)") }

        // When the certificate is renewed and the password changed, SIGHUP makes new connections use both
        try certificates.sign("server", subject: "renewed", server: true)
        let newHash = try ServeClient.bcrypt("renewed")
        try configure(passwordHash: newHash)
        let seen = server.errors.lines.count
        server.process.send(SIGHUP)
        #expect(server.errors.waitForLine(after: seen) { $0.contains("read \(web) again") } != nil)
        #expect(try request(certificate: true, password: "secret")["status"] as? Int == 401)
        let renewed = try request(certificate: true, password: "renewed")
        #expect(renewed["status"] as? Int == 200 && renewed["server"] as? String == "renewed")
        // And a stop is not held up by Prometheus' kept-alive TLS connection (its close_notify waited 5 s)
        let stopping = ContinuousClock.now
        let ended = server.stop()
        let took = ContinuousClock.now - stopping
        #expect(ended == .exited(0), "\(server.errors.lines.suffix(40).joined(separator: "\n"))")
        #expect(took < .seconds(Sanitizer.current == nil ? 1 : 3), "a stop took \(took)")
    }

    /// exporter-toolkit's own sample, as its documentation gives it, and a file with every key its documentation
    /// names: each read and served as node_exporter serves it.
    @Test func exporterToolkitsDocumentedWebConfigurationsAreReadAndServed() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        try certificates.sign("stranger", subject: "stranger", server: false, clientName: "other.example")
        let (web, ca) = (certificates.path("web.yml"), certificates.path("ca.crt"))
        // exporter-toolkit's docs/web-config.yml, word for word: TLS, two users, paths without a password
        try """
        # TLS and basic authentication configuration example.
        #
        # Additionally, a certificate and a key file are needed.
        tls_server_config:
          cert_file: server.crt
          key_file: server.key

        # Usernames and passwords required to connect.
        # Passwords are hashed with bcrypt: https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md#about-bcrypt.
        basic_auth_users:
          alice: $2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze
          bob: $2y$10$hLqFl9jSjoAAy95Z/zw8Ye8wkdMBM8c5Bn1ptYqP/AXyV0.oy0S8m

        # Exclude /-/healthy and /-/ready from basic authentication
        basic_auth_excluded_paths:
        - /-/healthy
        - /-/ready

        """.write(toFile: web, atomically: true, encoding: .utf8)
        var server = try ServeClient(["internet", "--web-config", web], in: network)
        func request(_ path: String, client: String = "-", password: String = "secret") throws -> [String: Any] {
            try server.python(
                "tls",
                [
                    server.address, path, ca, client == "-" ? "-" : certificates.path("\(client).crt"),
                    certificates.path("\(client).key"), password == "-" ? "-" : "prometheus", password,
                ])
        }
        #expect(try request("/metrics", password: "-")["status"] as? Int == 401)
        #expect(try request("/-/ready", password: "-")["status"] as? Int == 404, "excluded: not asked for a password")
        server.stop()

        // Every key of docs/web-configuration.md: the certificate and key written in the file, a client certificate
        // that must name prometheus.example, the TLS versions, suites and curves, HTTP/2 (HTTP/1.1 here, said), the five
        // headers, a password and a rate limit of 2 requests, then 1 each 10 s
        func indented(_ file: String) throws -> String {
            try TestFile.text(certificates.path(file)).split(separator: "\n").map { "    \($0)" }
                .joined(separator: "\n")
        }
        try """
        tls_server_config:
          cert: |
        \(try indented("server.crt"))
          key: |
        \(try indented("server.key"))
          client_auth_type: RequireAndVerifyClientCert
          client_ca_file: ca.crt
          client_allowed_sans:
            - prometheus.example
          min_version: TLS12
          max_version: TLS13
          cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256]
          prefer_server_cipher_suites: true
          curve_preferences:
            - X25519
            - CurveP256
        http_server_config:
          http2: true
          headers:
            Content-Security-Policy: default-src 'self'
            X-Frame-Options: deny
            X-Content-Type-Options: nosniff
            X-XSS-Protection: 1; mode=block
            Strict-Transport-Security: max-age=31536000
        basic_auth_users:
          prometheus: \(WebConfigurationTests.secretHash)
        rate_limit:
          interval: 10s
          burst: 2
        """.write(toFile: web, atomically: true, encoding: .utf8)
        server = try ServeClient(["internet", "--web-config", web], in: network)
        defer { server.stop() }
        #expect(server.errors.lines.contains { $0.contains("note: http_server_config.http2 is true") })
        #expect(try request("/metrics", client: "stranger")["status"] as? Int == 0, "a name not allowed: closed")
        let allowed = try request("/metrics", client: "client")
        #expect(allowed["status"] as? Int == 200)
        let headers = allowed["headers"] as? [String: String] ?? [:]
        #expect(headers["X-Frame-Options"] == "deny" && headers["Strict-Transport-Security"] == "max-age=31536000")
        #expect(headers["Content-Security-Policy"] == "default-src 'self'" && headers["X-XSS-Protection"] == "1; mode=block")
        #expect(try request("/status", client: "client")["status"] as? Int == 200)
        #expect(try request("/status", client: "client")["status"] as? Int == 429, "the burst of 2 was spent")

        // Written again without the rate limit and with another password, no SIGHUP: the next connection reads it
        let renewed = try ServeClient.bcrypt("renewed")
        try TestFile.text(web).replacing(WebConfigurationTests.secretHash, with: renewed)
            .replacing("rate_limit:\n  interval: 10s\n  burst: 2", with: "").write(toFile: web, atomically: true, encoding: .utf8)
        #expect(try request("/metrics", client: "client", password: "renewed")["status"] as? Int == 200)
        #expect(server.errors.lines.contains { $0.contains("read \(web) again") })
        #expect(try request("/metrics", client: "client")["status"] as? Int == 401)
    }

}
