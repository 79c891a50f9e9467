import Testing

@testable import NetworkReachabilityExporter

/// `--listen`: the forms node_exporter's `--web.listen-address` takes, and a reason for each refusal.
struct ListenAddressTests {
    @Test(arguments: [
        ("127.0.0.1:9464", "127.0.0.1", 9464), ("[::1]:0", "::1", 0), ("0.0.0.0:9100", "0.0.0.0", 9100),
        (":9100", "::", 9100), ("localhost:9464", "127.0.0.1", 9464), ("[fe80::1%eth0]:1", "fe80::1%eth0", 1),
    ])
    func theFormsNodeExporterOperatorsWriteAreTaken(text: String, host: String, port: Int) throws {
        let address = try ListenAddress(parsing: text)
        #expect(address.host == host && address.port == port)
    }

    @Test(arguments: [
        ("0.0.0.0", "no :PORT"), ("prometheus.example:9464", "a host name is not resolved"),
        ("::1:9464", "in brackets: [::1]:9464"), ("::1", "in brackets: [::1]:9464"),
        ("[::1]9464", "followed by :PORT"), ("[1.2.3.4]:1", "in brackets, an IPv6 address"),
        ("1.2.3.4:65536", "from 0 to 65535"), ("1.2.3.4:+80", "from 0 to 65535"), ("1.2.3.4:", "from 0 to 65535"),
        ("", "no :PORT"),
    ])
    func eachRefusalSaysWhy(text: String, reason: String) {
        #expect(throws: ListenAddress.Refusal.self) { try ListenAddress(parsing: text) }
        do {
            _ = try ListenAddress(parsing: text)
        } catch {
            #expect(error.description.contains(reason), "\(text): \(error.description)")
        }
    }
}
