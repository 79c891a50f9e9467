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
        let ended = server.stop()
        #expect(ended == .exited(0), "\(server.errors.lines.suffix(40).joined(separator: "\n"))")
    }
}
