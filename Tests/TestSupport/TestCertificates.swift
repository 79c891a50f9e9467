import Foundation

/// A certificate authority of a test's own, made with `openssl`, and the certificates it signs: a server's for
/// 127.0.0.1 (as many as asked, each with its own name) and a client's. ``remove()`` removes the folder.
public final class TestCertificates: Sendable {
    /// The folder holding `ca.crt`, and each certificate `NAME.crt` with its key `NAME.key`.
    public let folder: String

    /// Makes the authority, a server certificate `server` and a client certificate `client` (for the name
    /// prometheus.example).
    public init() throws {
        folder = try TestFolder.make("certificates")
        do {
            try openssl([
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "ca.key", "-out", "ca.crt", "-subj", "/CN=reach test CA", "-days", "2",
            ])
            try sign("server", subject: "server", server: true)
            try sign("client", subject: "prometheus", server: false)
        } catch {
            remove()
            throw error
        }
    }

    /// The path of `name` in the folder: `ca.crt`, `server.key`.
    public func path(_ name: String) -> String { "\(folder)/\(name)" }

    /// Makes `NAME.crt` and `NAME.key`, signed by the authority, for the subject `CN=subject`; a server's is for
    /// 127.0.0.1 and localhost, a client's for the DNS name `clientName`.
    public func sign(_ name: String, subject: String, server: Bool, clientName: String = "prometheus.example") throws {
        try openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "\(name).key",
            "-out", "\(name).csr", "-subj", "/CN=\(subject)",
        ])
        let extensions =
            server
            ? "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
            : "subjectAltName=DNS:\(clientName)\nextendedKeyUsage=clientAuth\n"
        try extensions.write(toFile: path("\(name).ext"), atomically: true, encoding: .utf8)
        try openssl([
            "x509", "-req", "-in", "\(name).csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out",
            "\(name).crt", "-days", "2", "-extfile", "\(name).ext",
        ])
    }

    private func openssl(_ arguments: [String]) throws {
        try Command.run(["/bin/sh", "-c", "cd \"$0\" && exec openssl \"$@\"", folder] + arguments, check: true)
    }

    /// Removes the folder.
    public func remove() { try? FileManager.default.removeItem(atPath: folder) }
}
