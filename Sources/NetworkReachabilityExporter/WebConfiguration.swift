import NetworkReachabilityPOSIX

/// `--web-config FILE`: TLS and basic authentication in the format of Prometheus' exporter-toolkit, as node_exporter's
/// `--web.config.file` reads it. File names are relative to the file's folder; an unknown key, a password that is
/// not a bcrypt hash or a setting this server cannot honour is an error that names it, never ignored.
///
/// ```yaml
/// tls_server_config:
///   cert_file: server.crt
///   key_file: server.key
///   client_auth_type: RequireAndVerifyClientCert
///   client_ca_file: ca.crt
/// basic_auth_users:
///   prometheus: $2y$10$...
/// ```
struct WebConfiguration: Sendable, Equatable {
    /// Whether, and how, a client must show a certificate (exporter-toolkit's `client_auth_type`).
    enum ClientAuthentication: String, Sendable, CaseIterable {
        /// None is asked for.
        case none = "NoClientCert"
        /// One is asked for and not required; none is verified (TLS offers no request without verification here, so
        /// none is asked for, as with `NoClientCert`).
        case request = "RequestClientCert"
        /// One is required, and not verified.
        case requireAny = "RequireAnyClientCert"
        /// One given is verified against the client CA; none is required.
        case verifyIfGiven = "VerifyClientCertIfGiven"
        /// One is required and verified against the client CA.
        case requireAndVerify = "RequireAndVerifyClientCert"

        /// Whether it verifies the client's certificate, and so needs `client_ca_file`.
        var verifies: Bool { self == .verifyIfGiven || self == .requireAndVerify }
    }

    /// A TLS version, as exporter-toolkit spells it.
    enum TLSVersion: String, Sendable, CaseIterable {
        case tls10 = "TLS10", tls11 = "TLS11", tls12 = "TLS12", tls13 = "TLS13"
    }

    /// The server's TLS settings.
    struct TLS: Sendable, Equatable {
        var certificateFile: String
        var keyFile: String
        var clientAuthentication = ClientAuthentication.none
        var clientCAFile: String?
        var minimumVersion = TLSVersion.tls12
        var maximumVersion: TLSVersion?
    }

    /// The path the configuration was read from.
    var path: String
    /// TLS, when `tls_server_config` is given.
    var tls: TLS?
    /// The users allowed in, with their passwords' bcrypt hashes; none: no authentication.
    var users: [String: String] = [:]

    /// The longest file read, 1 MiB: longer ones are refused after reading one byte more.
    static let largest = 1 << 20

    /// Reads the file at `path`.
    ///
    /// - Throws: ``WebConfigurationError`` naming the file and what is wrong.
    init(path: String) throws(WebConfigurationError) {
        self.path = path
        guard let bytes = SmallFile.bytes(path, limit: Self.largest + 1) else {
            throw WebConfigurationError(path: path, reason: "cannot be read")
        }
        guard bytes.count <= Self.largest, let text = String(validating: bytes, as: UTF8.self) else {
            throw WebConfigurationError(path: path, reason: "is not a text file of at most 1 MiB")
        }
        let document: [String: BlockMapping]
        do {
            document = try BlockMapping.parse(text)
        } catch {
            throw WebConfigurationError(path: path, reason: "\(error)")
        }
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        try read(document, relativeTo: folder.isEmpty ? "/" : folder)
    }

    private mutating func read(_ top: [String: BlockMapping], relativeTo folder: String) throws(WebConfigurationError) {
        try expectKeys(of: top, in: ["tls_server_config", "basic_auth_users", "http_server_config"], at: "the file")
        if let http = top["http_server_config"] {
            // Only the defaults, which this server has: HTTP/1.1 and no extra headers.
            let settings = try mapping(http, at: "http_server_config")
            try expectKeys(of: settings, in: [], at: "http_server_config")
        }
        if let tlsValue = top["tls_server_config"] {
            let settings = try mapping(tlsValue, at: "tls_server_config")
            try expectKeys(
                of: settings,
                in: ["cert_file", "key_file", "client_auth_type", "client_ca_file", "min_version", "max_version"],
                at: "tls_server_config")
            func file(_ key: String) throws(WebConfigurationError) -> String? {
                guard let value = settings[key] else { return nil }
                guard let name = value.text, !name.isEmpty else {
                    throw WebConfigurationError(path: path, reason: "tls_server_config.\(key) must be a file name")
                }
                return name.hasPrefix("/") ? name : "\(folder)/\(name)"
            }
            guard let certificate = try file("cert_file"), let key = try file("key_file") else {
                throw WebConfigurationError(path: path, reason: "tls_server_config needs cert_file and key_file")
            }
            var tls = TLS(certificateFile: certificate, keyFile: key)
            tls.clientCAFile = try file("client_ca_file")
            if let value = settings["client_auth_type"] {
                guard let word = value.text, let mode = ClientAuthentication(rawValue: word) else {
                    throw WebConfigurationError(
                        path: path,
                        reason: "tls_server_config.client_auth_type must be one of "
                            + ClientAuthentication.allCases.map(\.rawValue).joined(separator: ", "))
                }
                tls.clientAuthentication = mode
            }
            if tls.clientAuthentication.verifies && tls.clientCAFile == nil {
                throw WebConfigurationError(
                    path: path, reason: "client_auth_type \(tls.clientAuthentication.rawValue) needs client_ca_file")
            }
            for (key, apply) in [
                ("min_version", { (version: TLSVersion) in tls.minimumVersion = version }),
                ("max_version", { (version: TLSVersion) in tls.maximumVersion = version }),
            ] as [(String, (TLSVersion) -> Void)] {
                guard let value = settings[key] else { continue }
                guard let word = value.text, let version = TLSVersion(rawValue: word) else {
                    throw WebConfigurationError(
                        path: path, reason: "tls_server_config.\(key) must be one of TLS10, TLS11, TLS12, TLS13")
                }
                apply(version)
            }
            self.tls = tls
        }
        if let usersValue = top["basic_auth_users"] {
            for (user, hash) in try mapping(usersValue, at: "basic_auth_users") {
                guard let hash = hash.text, BasicAuthentication.isBcrypt(hash) else {
                    throw WebConfigurationError(
                        path: path,
                        reason: "the password of basic_auth_users.\(user.prefix(40)) is not a bcrypt hash ($2a$, $2b$ or $2y$)")
                }
                guard !user.contains(":"), !user.isEmpty else {
                    throw WebConfigurationError(path: path, reason: "a user name is empty or has a ':'")
                }
                users[user] = hash
            }
        }
    }

    private func mapping(_ value: BlockMapping, at place: String) throws(WebConfigurationError) -> [String: BlockMapping] {
        switch value {
        case .mapping(let mapping): return mapping
        case .scalar(let text) where text.isEmpty: return [:]
        case .scalar: throw WebConfigurationError(path: path, reason: "\(place) must be a mapping of names to values")
        }
    }

    private func expectKeys(of mapping: [String: BlockMapping], in known: Set<String>, at place: String)
        throws(WebConfigurationError)
    {
        if let unknown = mapping.keys.sorted().first(where: { !known.contains($0) }) {
            throw WebConfigurationError(
                path: path, reason: "\(place) has '\(unknown.prefix(60))', which this server does not know")
        }
    }
}

/// Why a web configuration could not be used: the file and the reason, in one line.
package struct WebConfigurationError: Error, CustomStringConvertible {
    var path: String
    var reason: String

    package var description: String { "web configuration \(path): \(reason)" }
}
