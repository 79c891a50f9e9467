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
        #expect(configuration.tls?.certificateFile == "\(folder)/server.crt")
        #expect(configuration.tls?.keyFile == "\(folder)/keys/server.key")
        #expect(configuration.tls?.clientCAFile == "/etc/ca.crt")
        #expect(configuration.tls?.clientAuthentication == .requireAndVerify && configuration.tls?.minimumVersion == .tls13)
        #expect(configuration.users == ["prometheus": Self.secretHash, "alice": Self.secretHash])
    }

    @Test(arguments: [
        ("tls_server_config:\n  cert_file: a.crt\n", "needs cert_file and key_file"),
        ("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Maybe\n", "client_auth_type must be one of"),
        (
            "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAndVerifyClientCert\n",
            "needs client_ca_file"
        ),
        (
            "tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: x\n",
            "has 'cipher_suites', which this server does not know"
        ),
        ("basic_auth_users:\n  prometheus: plaintext\n", "is not a bcrypt hash"),
        ("basic_auth_users:\n  - prometheus\n", "line 2: only mappings"),
        ("tls_server_config: {cert_file: a}\n", "line 1: only plain or quoted values"),
        ("rate_limit:\n  interval: 1s\n", "has 'rate_limit'"),
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
