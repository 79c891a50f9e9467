import Foundation
import Testing
import TestSupport

@testable import NetworkReachabilityExporter

/// `--web-config` files as node_exporter's users write them, and those that must be refused with a reason.
struct WebConfigurationTests {
    private static func write(_ text: String) throws -> String {
        let folder = try TestFolder.make("webconfig")
        try text.write(toFile: "\(folder)/web.yml", atomically: true, encoding: .utf8)
        return "\(folder)/web.yml"
    }

    /// A bcrypt hash of "secret", as `htpasswd -nbBC 10` makes them.
    static let secretHash = "$2b$10$Z.iEQeyMkaR9rVRpRdrLXOo.Q9uwmJy.tf9D4ehKyQBiGm89Su16u"

    @Test func exporterToolkitsFormatIsReadWithPathsRelativeToTheFile() throws {
        let path = try Self.write(
            """
            ---
            # as node_exporter's documentation writes it
            tls_server_config:
              cert_file: server.crt    # the server's
              key_file: "keys/server.key"
              client_auth_type: 'RequireAndVerifyClientCert'
              client_ca_file: /etc/ca.crt
              min_version: TLS13
            basic_auth_users:
              prometheus: \(Self.secretHash)
              'alice': "\(Self.secretHash)"
            """)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let configuration = try WebConfiguration(path: path)
        let folder = (path as NSString).deletingLastPathComponent
        #expect(configuration.tls?.certificate == .file("\(folder)/server.crt"))
        #expect(configuration.tls?.key == .file("\(folder)/keys/server.key"))
        #expect(configuration.tls?.clientCA == .file("/etc/ca.crt"))
        #expect(configuration.tls?.clientAuthentication == .requireAndVerify && configuration.tls?.minimumVersion == .tls13)
        #expect(configuration.users == ["prometheus": Self.secretHash, "alice": Self.secretHash])
    }

    @Test func everyKeyOfExporterToolkitsDocumentationIsReadAsItsDocumentationSays() throws {
        let path = try Self.write(
            """
            tls_server_config:
              cert: |
                -----BEGIN CERTIFICATE-----
                  MIIB
                -----END CERTIFICATE-----
              key: |-
                PEM
              client_auth_type: RequireAnyClientCert
              client_allowed_sans:
              - prometheus.example
              - "10.0.0.1"
              cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, 'TLS_AES_128_GCM_SHA256']
              prefer_server_cipher_suites: false
              curve_preferences: [X25519MLKEM768, CurveP384]
            http_server_config:
              http2: false
              headers:
                X-Content-Type-Options: NoSniff
                X-Frame-Options: ""
            basic_auth_excluded_paths: []
            rate_limit:
              interval: 1m30.5s
              burst: 0
            """)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let configuration = try WebConfiguration(path: path)
        let tls = try #require(configuration.tls)
        #expect(tls.certificate == .inline("-----BEGIN CERTIFICATE-----\n  MIIB\n-----END CERTIFICATE-----\n"))
        #expect(tls.key == .inline("PEM"))
        #expect(tls.clientAllowedNames == ["prometheus.example", "10.0.0.1"])
        #expect(tls.cipherSuites == [0xC02F, 0x1301] && tls.curves == [0x11EC, 0x18])
        #expect(configuration.headers.map(\.name) == ["X-Content-Type-Options"], "a blank header is unset")
        #expect(configuration.notes.isEmpty && configuration.unauthenticatedPaths.isEmpty)
        #expect(configuration.rateLimit == .init(interval: .milliseconds(90_500), burst: 1))
        #expect(WebConfiguration.goDuration("0") == .zero && WebConfiguration.goDuration("250ms") == .milliseconds(250))
        #expect(WebConfiguration.goDuration("1h2m") == .seconds(3720) && WebConfiguration.goDuration("5") == nil)
    }

    @Test func aFileWrittenOnWindowsIsReadAsTheSame() throws {
        let text = "tls_server_config:\n  cert_file: 'a.crt'\n  key_file: b.key\nbasic_auth_users:\n  prometheus: \(Self.secretHash)\n"
        let path = try Self.write(text.replacing("\n", with: "\r\n"))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let configuration = try WebConfiguration(path: path)
        #expect(configuration.users == ["prometheus": Self.secretHash])
        #expect(configuration.tls?.certificate == .file((path as NSString).deletingLastPathComponent + "/a.crt"))
    }

    /// A quote left open reads the rest of the file once: 500,000 lines of it are one pass, refused with the reason.
    @Test func aQuoteLeftOpenOverAMegabyteIsRefusedInOnePass() throws {
        let path = try Self.write("tls_server_config:\n  cert: \"" + String(repeating: "x\n", count: 500_000))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect {
            _ = try WebConfiguration(path: path)
        } throws: { error in
            "\(error)".contains("line 2: a quoted value without its closing quote")
        }
    }

    /// exporter-toolkit reads YAML 1.1 (gopkg.in/yaml.v2), where `yes`, `On` and `N` are booleans.
    @Test(arguments: [("yes", true), ("On", true), ("TRUE", true), ("y", true), ("no", false), ("OFF", false), ("False", false)])
    func yamlOnePointOneBooleansAreRead(spelling: String, value: Bool) throws {
        let path = try Self.write("http_server_config:\n  http2: \(spelling)\n")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect(try WebConfiguration(path: path).notes.contains { $0.contains("http2") } == value)
    }

    /// The YAML that tools write a web configuration in (a byte order mark, quoted values over several lines with
    /// YAML's escapes as PyYAML and Ansible wrap an inline PEM, flow mappings, block indicators), each read as PyYAML
    /// reads it.
    @Test(.ownThread) func documentsAreReadAsPyYAMLReadsThem() throws {
        let documents = [
            "\u{FEFF}basic_auth_users:\n  prometheus: x\n",
            #"tls_server_config: {cert: "-----BEGIN X-----\nMIIB\tx\x41\u00e9\U0001F600\n-----END X-----\n", key_file: 'a''b'}"#,
            "basic_auth_users: {}\nheaders: {a: b, 'c': \"d, e\", f: g h}\n",
            "cert: \"first\n  second\\\n  third\n\n  fourth \\\"#\\\" # not a comment\"\nnext: 'it''s # not one either'\n",
            "key: |+\n  a\n\n  b\n\n\nnext: |2\n     indented\n    less\nthird: | # a comment\n  x\nlast: >\n  folded\n  line\n\n  para\n    more\n  end\n",
            "keep: |+\n  a\n\n",
            "strip: >-\n  a\n  b\n\n\nplain: don't 'quote' me\nlist: [a, 'b, c', \"d\"]\n",
        ]
        let folder = try TestFolder.make("yaml")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try JSONSerialization.data(withJSONObject: documents).write(to: URL(fileURLWithPath: "\(folder)/documents.json"))
        let script = """
            import json, sys, yaml
            documents = json.load(open(sys.argv[1]))
            pem = '-----BEGIN CERTIFICATE-----\\n' + ('MIIBkTCB+wIJAK' + 'x' * 50 + '\\n') * 4 + '-----END CERTIFICATE-----\\n'
            for style, width in [(None, 80), ('"', 80), ('"', 30), ("'", 30)]:
                documents.append(yaml.dump({'tls_server_config': {'cert': pem, 'key_file': 'a b'}}, default_style=style, width=width))
            policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'"
            documents.append(yaml.dump({'http_server_config': {'headers': {'Content-Security-Policy': policy}},
                                        'tls_server_config': {'cert_file': '/etc/reach/a long name with spaces ' * 3}}))
            print(json.dumps([{'text': text, 'loaded': yaml.safe_load(text)} for text in documents]))
            """
        let result = try Command.run(TestPython.command(["-c", script, "\(folder)/documents.json"]), check: true)
        let cases = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        #expect(cases.count == documents.count + 5)
        func plain(_ value: BlockMapping) -> Any {
            switch value {
            case .scalar(let text): text
            case .sequence(let items): items
            case .mapping(let mapping): mapping.mapValues(plain)
            }
        }
        for document in cases {
            let text = try #require(document["text"] as? String)
            let expected = try #require(document["loaded"] as? [String: Any])
            let read = try BlockMapping.parse(text).mapValues(plain)
            #expect((read as NSDictionary).isEqual(to: expected), "\(text)\nread: \(read)\nPyYAML: \(expected)")
        }
    }

    @Test(arguments: [
        ("tls_server_config:\n  cert_file: a.crt\n", "needs cert_file and key_file"),
        ("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Maybe\n", "client_auth_type must be one of"),
        (
            "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAndVerifyClientCert\n",
            "needs client_ca_file"
        ),
        (
            "tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n",
            "cipher_suites has TLS_RSA_WITH_RC4_128_SHA, which is none of"
        ),
        ("tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: x\n", "cipher_suites must be a list"),
        (
            "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_allowed_sans: [a]\n",
            "client_allowed_sans needs client_auth_type RequireAnyClientCert"
        ),
        ("tls_server_config:\n  cert: x\n  cert_file: a\n  key_file: b\n", "has both cert and cert_file"),
        ("tls_server_config:\n  cert_file: a\n  key_file: b\n  curve_preferences: [P256]\n", "curve_preferences has P256"),
        ("tls_server_config:\n  cert_file: a\n  key_file: b\n  prefer_server_cipher_suites: maybe\n", "must be true or false"),
        ("tls_server_config:\n  cert_file: a\n  key_file: b\n  prefer_server_cipher_suites: yEs\n", "must be true or false"),
        ("http_server_config:\n  headers:\n    X-Frame-Options: allow\n", "X-Frame-Options must be deny or sameorigin"),
        ("http_server_config:\n  headers:\n    Server: reach\n", "headers.Server cannot be set"),
        ("rate_limit:\n  interval: soon\n", "rate_limit.interval must be a duration"),
        ("basic_auth_excluded_paths: [metrics]\n", "each starting with /"),
        ("basic_auth_users:\n  - prometheus: x\n", "line 2: only lists of plain or quoted values"),
        ("tls_server_config:\n  key: |\n      a\n    b\n", "line 4: indented less than its block's first line"),
        ("basic_auth_excluded_paths: [/a, , /b]\n", "an empty item in a list"),
        ("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n  max_version: TLS12\n", "max_version TLS12 is below min_version TLS13"),
        ("basic_auth_users:\n  prometheus: plaintext\n", "is not a bcrypt hash"),
        ("basic_auth_users:\n  - prometheus\n", "basic_auth_users must be a mapping"),
        ("tls_server_config: {cert_file: a}\n", "needs cert_file and key_file"),
        ("tls_server_config: {cert_file: [a]}\n", "line 1: only plain or quoted values are read in a '[' list or '{' mapping"),
        ("tls_server_config:\n  cert: \"\\q\"\n", "line 2: '\\q' is no escape YAML reads"),
        ("tls_server_config:\n  cert: \"a\n  b\n", "line 2: a quoted value without its closing quote"),
        ("rate_limit:\n  interval: 1s\n  every: 2\n", "rate_limit has 'every'"),
        ("- a\n", "line 1: only names with values"),
        ("tls_server_config:\n\tcert_file: a\n", "line 2: a tab in the indentation"),
        ("basic_auth_users:\n  a: \(secretHash)\n  a: \(secretHash)\n", "line 3: 'a' is given twice"),
        ("tls_server_config:\n  cert_file: 'a\n", "without its closing quote"),
        ("tls_server_config:\n    cert_file: a\n  key_file: b\n", "line 3: indented"),
    ])
    func whatCannotBeHonouredIsRefusedWithItsReason(text: String, reason: String) throws {
        let path = try Self.write(text)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect {
            _ = try WebConfiguration(path: path)
        } throws: { error in
            "\(error)".hasPrefix("web configuration \(path): ") && "\(error)".contains(reason)
        }
    }

    @Test func aFileLongerThan1MiBOrEndlessOrEmptyIsRefusedAfterReadingAtMost1MiBAndOneByte() throws {
        let folder = try TestFolder.make("webconfig")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let comment = "# " + String(repeating: "x", count: 1 << 20 - 3) + "\n"  // 1 MiB exactly: read
        try comment.write(toFile: "\(folder)/largest.yml", atomically: true, encoding: .utf8)
        #expect(try WebConfiguration(path: "\(folder)/largest.yml").users.isEmpty)
        try (comment + "\n").write(toFile: "\(folder)/longer.yml", atomically: true, encoding: .utf8)
        for path in ["\(folder)/longer.yml", "/dev/zero"] {  // /dev/zero never ends: read whole, it would never return
            #expect {
                _ = try WebConfiguration(path: path)
            } throws: { error in
                "\(error)" == "web configuration \(path): is not a text file of at most 1 MiB"
            }
        }
        #expect(throws: WebConfigurationError.self) { try WebConfiguration(path: folder) }  // a folder cannot be read
        #expect(FileManager.default.createFile(atPath: "\(folder)/empty.yml", contents: nil))
        #expect(try WebConfiguration(path: "\(folder)/empty.yml").tls == nil)  // empty: plain HTTP, no users
    }

    @Test func aPasswordIsCheckedAgainstItsBcryptHashBySystemCrypt() {
        #expect(BasicAuthentication.verify("secret", against: Self.secretHash))
        #expect(!BasicAuthentication.verify("Secret", against: Self.secretHash))
        #expect(!BasicAuthentication.verify("secret\u{0}x", against: Self.secretHash))
        #expect(BasicAuthentication.isBcrypt(Self.secretHash) && !BasicAuthentication.isBcrypt("$6$salt$hash"))
    }
}
