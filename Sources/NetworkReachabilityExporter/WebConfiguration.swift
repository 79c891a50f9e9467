import NetworkReachabilityPOSIX
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `--web-config FILE`: TLS, basic authentication, response headers and a rate limit in the format of Prometheus'
/// exporter-toolkit, as node_exporter's `--web.config.file` reads it, every key of its documentation: a node_exporter
/// operator's file works unchanged. File names are relative to the file's folder. An unknown key, a password that is
/// not a bcrypt hash, or a value exporter-toolkit would refuse is an error that names it, never ignored; what this
/// server does not do (`http2: true`: it speaks HTTP/1.1) is one of ``notes``.
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
        /// Whether every client shows a certificate, so `client_allowed_sans` has one to match.
        var requires: Bool { self == .requireAny || self == .requireAndVerify }
    }

    /// A TLS version, as exporter-toolkit spells it.
    enum TLSVersion: String, Sendable, CaseIterable {
        case tls10 = "TLS10", tls11 = "TLS11", tls12 = "TLS12", tls13 = "TLS13"
    }

    /// PEM text, from a file or written in the configuration itself (`cert:`, `key:`, `client_ca:`).
    enum PEM: Sendable, Equatable {
        case file(String)
        case inline(String)

        /// How an error names it: the file's path, or the key it was written under.
        var name: String {
            switch self {
            case .file(let path): path
            case .inline: "written in the file"
            }
        }
    }

    /// The server's TLS settings.
    struct TLS: Sendable, Equatable {
        var certificate: PEM
        var key: PEM
        var clientAuthentication = ClientAuthentication.none
        var clientCA: PEM?
        /// Names one of which a client certificate's subject alternative names must be (DNS, IP, e-mail or URI).
        var clientAllowedNames: [String] = []
        var minimumVersion = TLSVersion.tls12
        var maximumVersion: TLSVersion?
        /// The TLS 1.2 suites allowed, by IANA code point, in the order given; empty: BoringSSL's defaults.
        var cipherSuites: [UInt16] = []
        /// The key exchange groups, by IANA code point, in preference order; empty: BoringSSL's defaults.
        var curves: [UInt16] = []
    }

    /// exporter-toolkit's `rate_limit`: a token bucket over every request.
    struct RateLimit: Sendable, Equatable {
        /// The time between two requests beyond the burst.
        var interval: Duration
        /// The requests allowed at once.
        var burst: Int
    }

    /// The path the configuration was read from.
    var path: String
    /// TLS, when `tls_server_config` is given.
    var tls: TLS?
    /// The users allowed in, with their passwords' bcrypt hashes; none: no authentication.
    var users: [String: String] = [:]
    /// Paths answered without authentication (`basic_auth_excluded_paths`).
    var unauthenticatedPaths: Set<String> = []
    /// Headers added to every answer (`http_server_config.headers`), in the file's order of exporter-toolkit's names.
    var headers: [(name: String, value: String)] = []
    /// The rate limit, when one is set and its interval is not 0.
    var rateLimit: RateLimit?
    /// What the file asks that this server does not do, each a sentence to say on stderr.
    var notes: [String] = []

    /// The longest file read, 1 MiB: longer ones are refused after reading one byte more.
    static let largest = 1 << 20

    /// The response headers exporter-toolkit lets a file set.
    static let settableHeaders = [
        "Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "X-XSS-Protection",
        "Strict-Transport-Security",
    ]

    /// Go's `tls.CipherSuites()` names, which exporter-toolkit takes, and their IANA code points. The TLS 1.3 suites
    /// cannot be chosen (Go and BoringSSL use all three): they are taken and change nothing, as in Go.
    static let cipherSuites: [String: UInt16] = [
        "TLS_RSA_WITH_AES_128_CBC_SHA": 0x002F, "TLS_RSA_WITH_AES_256_CBC_SHA": 0x0035,
        "TLS_RSA_WITH_AES_128_GCM_SHA256": 0x009C, "TLS_RSA_WITH_AES_256_GCM_SHA384": 0x009D,
        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA": 0xC009, "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA": 0xC00A,
        "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA": 0xC013, "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA": 0xC014,
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256": 0xC02B, "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384": 0xC02C,
        "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256": 0xC02F, "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384": 0xC030,
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256": 0xCCA8, "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256": 0xCCA9,
        "TLS_AES_128_GCM_SHA256": 0x1301, "TLS_AES_256_GCM_SHA384": 0x1302, "TLS_CHACHA20_POLY1305_SHA256": 0x1303,
    ]

    /// Go's `tls.CurveID` names, which exporter-toolkit takes, and their IANA code points.
    static let curves: [String: UInt16] = [
        "CurveP256": 0x17, "CurveP384": 0x18, "CurveP521": 0x19, "X25519": 0x1D, "X25519MLKEM768": 0x11EC,
    ]

    /// Reads the file at `path`.
    ///
    /// - Throws: ``WebConfigurationError`` naming the file and what is wrong.
    init(path: String) throws(WebConfigurationError) {
        self.path = path
        guard let bytes = SmallFile.bytes(path, limit: Self.largest + 1) else {
            throw WebConfigurationError(path: path, reason: "cannot be read: \(String(cString: strerror(errno)))")
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

    static func == (left: WebConfiguration, right: WebConfiguration) -> Bool {
        left.path == right.path && left.tls == right.tls && left.users == right.users
            && left.unauthenticatedPaths == right.unauthenticatedPaths && left.headers.elementsEqual(right.headers, by: ==)
            && left.rateLimit == right.rateLimit && left.notes == right.notes
    }

    private mutating func read(_ top: [String: BlockMapping], relativeTo folder: String) throws(WebConfigurationError) {
        try expectKeys(
            of: top,
            in: ["tls_server_config", "basic_auth_users", "basic_auth_excluded_paths", "http_server_config", "rate_limit"],
            at: "the file")
        if let http = top["http_server_config"] { try readHTTP(try mapping(http, at: "http_server_config")) }
        if let tls = top["tls_server_config"] {
            self.tls = try readTLS(try mapping(tls, at: "tls_server_config"), relativeTo: folder)
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
        if let excluded = top["basic_auth_excluded_paths"] {
            guard let paths = excluded.items, paths.allSatisfy({ $0.hasPrefix("/") }) else {
                throw WebConfigurationError(path: path, reason: "basic_auth_excluded_paths must be a list of paths, each starting with /")
            }
            unauthenticatedPaths = Set(paths)
        }
        if let limit = top["rate_limit"] { rateLimit = try readRateLimit(try mapping(limit, at: "rate_limit")) }
    }

    private mutating func readHTTP(_ settings: [String: BlockMapping]) throws(WebConfigurationError) {
        try expectKeys(of: settings, in: ["http2", "headers"], at: "http_server_config")
        if let value = settings["http2"] {
            // Go's default is true; this server answers HTTP/1.1, which Prometheus scrapes with either way.
            if try boolean(value, at: "http_server_config.http2") {
                notes.append("http_server_config.http2 is true, and this server speaks HTTP/1.1 only: clients use that")
            }
        }
        if let value = settings["headers"] {
            let given = try mapping(value, at: "http_server_config.headers")
            for name in given.keys.sorted() where !Self.settableHeaders.contains(name) {
                throw WebConfigurationError(
                    path: path,
                    reason: "http_server_config.headers.\(name.prefix(60)) cannot be set: only "
                        + Self.settableHeaders.joined(separator: ", "))
            }
            for name in Self.settableHeaders {
                guard let header = given[name] else { continue }
                guard let text = header.text, !text.contains(where: { $0.isNewline }) else {
                    throw WebConfigurationError(path: path, reason: "http_server_config.headers.\(name) must be one line")
                }
                let allowed: [String: [String]] = ["X-Frame-Options": ["deny", "sameorigin"], "X-Content-Type-Options": ["nosniff"]]
                if let values = allowed[name], !text.isEmpty, !values.contains(text.lowercased()) {
                    throw WebConfigurationError(
                        path: path, reason: "http_server_config.headers.\(name) must be \(values.joined(separator: " or "))")
                }
                if !text.isEmpty { headers.append((name, text)) }  // blank: unset, as exporter-toolkit reads it
            }
        }
    }

    private func readTLS(_ settings: [String: BlockMapping], relativeTo folder: String) throws(WebConfigurationError) -> TLS {
        try expectKeys(
            of: settings,
            in: [
                "cert", "key", "client_ca", "cert_file", "key_file", "client_auth_type", "client_ca_file",
                "client_allowed_sans", "min_version", "max_version", "cipher_suites", "prefer_server_cipher_suites",
                "curve_preferences",
            ],
            at: "tls_server_config")
        /// The PEM of `inline` or `fileKey`: one of them, not both.
        func pem(_ inline: String, _ fileKey: String) throws(WebConfigurationError) -> PEM? {
            let (text, file) = (settings[inline], settings[fileKey])
            if text != nil && file != nil {
                throw WebConfigurationError(path: path, reason: "tls_server_config has both \(inline) and \(fileKey): give one")
            }
            if let text {
                guard let pem = text.text, !pem.isEmpty else {
                    throw WebConfigurationError(path: path, reason: "tls_server_config.\(inline) must be PEM text")
                }
                return .inline(pem)
            }
            guard let file else { return nil }
            guard let name = file.text, !name.isEmpty else {
                throw WebConfigurationError(path: path, reason: "tls_server_config.\(fileKey) must be a file name")
            }
            return .file(name.hasPrefix("/") ? name : "\(folder)/\(name)")
        }
        guard let certificate = try pem("cert", "cert_file"), let key = try pem("key", "key_file") else {
            throw WebConfigurationError(path: path, reason: "tls_server_config needs cert_file and key_file (or cert and key)")
        }
        var tls = TLS(certificate: certificate, key: key)
        tls.clientCA = try pem("client_ca", "client_ca_file")
        if let value = settings["client_auth_type"] {
            guard let word = value.text, let mode = ClientAuthentication(rawValue: word) else {
                throw WebConfigurationError(
                    path: path,
                    reason: "tls_server_config.client_auth_type must be one of "
                        + ClientAuthentication.allCases.map(\.rawValue).joined(separator: ", "))
            }
            tls.clientAuthentication = mode
        }
        if tls.clientAuthentication.verifies && tls.clientCA == nil {
            throw WebConfigurationError(
                path: path, reason: "client_auth_type \(tls.clientAuthentication.rawValue) needs client_ca_file")
        }
        tls.clientAllowedNames = try list(settings["client_allowed_sans"], at: "tls_server_config.client_allowed_sans")
        if !tls.clientAllowedNames.isEmpty && !tls.clientAuthentication.requires {
            throw WebConfigurationError(
                path: path,
                reason: "tls_server_config.client_allowed_sans needs client_auth_type RequireAnyClientCert or RequireAndVerifyClientCert")
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
        let order = TLSVersion.allCases
        if let maximum = tls.maximumVersion, order.firstIndex(of: maximum)! < order.firstIndex(of: tls.minimumVersion)! {
            throw WebConfigurationError(
                path: path,
                reason: "tls_server_config.max_version \(maximum.rawValue) is below min_version \(tls.minimumVersion.rawValue)")
        }
        tls.cipherSuites = try codes(settings["cipher_suites"], in: Self.cipherSuites, at: "tls_server_config.cipher_suites")
        tls.curves = try codes(settings["curve_preferences"], in: Self.curves, at: "tls_server_config.curve_preferences")
        // Go's field has had no effect since Go 1.18 (its server chooses), nor has it here: BoringSSL's server chooses.
        if let value = settings["prefer_server_cipher_suites"] {
            _ = try boolean(value, at: "tls_server_config.prefer_server_cipher_suites")
        }
        return tls
    }

    private func readRateLimit(_ settings: [String: BlockMapping]) throws(WebConfigurationError) -> RateLimit? {
        try expectKeys(of: settings, in: ["interval", "burst"], at: "rate_limit")
        guard let text = settings["interval"]?.text, let interval = Self.goDuration(text) else {
            throw WebConfigurationError(path: path, reason: "rate_limit.interval must be a duration such as 1s or 100ms")
        }
        let burst = settings["burst"]?.text.map { Int($0) } ?? 0
        guard let burst, (0...1_000_000).contains(burst) else {
            throw WebConfigurationError(path: path, reason: "rate_limit.burst must be a whole number from 0 to 1000000")
        }
        // exporter-toolkit: an interval of 0 turns the limiter off; a burst of 0 would refuse every request.
        guard interval > .zero else { return nil }
        return RateLimit(interval: interval, burst: max(burst, 1))
    }

    /// A Go duration: numbers with units, `300ms`, `1m30s`, `0`.
    static func goDuration(_ text: String) -> Duration? {
        if text == "0" { return .zero }
        let units: [(String, Double)] = [("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600)]
        var rest = Substring(text)
        var seconds = 0.0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            guard let (unit, scale) = units.filter({ rest.hasPrefix($0.0) }).max(by: { $0.0.count < $1.0.count }) else {
                return nil
            }
            rest = rest.dropFirst(unit.count)
            seconds += value * scale
        }
        guard !text.isEmpty, seconds <= 86_400 * 365 else { return nil }
        return .nanoseconds(Int64(seconds * 1e9))
    }

    /// A boolean as exporter-toolkit's YAML reader (gopkg.in/yaml.v2, YAML 1.1) takes one: `true`, `yes`, `on`, `y`
    /// and their opposites, in lower case, capitalized or upper case.
    private func boolean(_ value: BlockMapping, at place: String) throws(WebConfigurationError) -> Bool {
        let text = value.text ?? ""
        let spellings = [text.lowercased(), text.prefix(1).uppercased() + text.dropFirst().lowercased(), text.uppercased()]
        guard spellings.contains(text) else {
            throw WebConfigurationError(path: path, reason: "\(place) must be true or false")
        }
        switch text.lowercased() {
        case "true", "yes", "on", "y": return true
        case "false", "no", "off", "n": return false
        default: throw WebConfigurationError(path: path, reason: "\(place) must be true or false")
        }
    }

    private func list(_ value: BlockMapping?, at place: String) throws(WebConfigurationError) -> [String] {
        guard let value else { return [] }
        guard let items = value.items else { throw WebConfigurationError(path: path, reason: "\(place) must be a list") }
        return items
    }

    /// The code points of a list of names from `table`, in the list's order.
    private func codes(_ value: BlockMapping?, in table: [String: UInt16], at place: String) throws(WebConfigurationError)
        -> [UInt16]
    {
        var codes: [UInt16] = []
        for name in try list(value, at: place) {
            guard let code = table[name] else {
                throw WebConfigurationError(
                    path: path, reason: "\(place) has \(name.prefix(60)), which is none of \(table.keys.sorted().joined(separator: ", "))")
            }
            codes.append(code)
        }
        return codes
    }

    private func mapping(_ value: BlockMapping, at place: String) throws(WebConfigurationError) -> [String: BlockMapping] {
        switch value {
        case .mapping(let mapping): return mapping
        case .scalar(let text) where text.isEmpty: return [:]
        case .scalar, .sequence: throw WebConfigurationError(path: path, reason: "\(place) must be a mapping of names to values")
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
