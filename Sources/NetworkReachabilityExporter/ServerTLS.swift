import NIOCore
import NIOSSL
import NetworkReachabilityPOSIX

/// The TLS of a web configuration, made into a context once per reading: the server's certificate and key, the
/// versions allowed, and whether and how a client's certificate is asked for and verified.
package struct ServerTLS: Sendable {
    let context: NIOSSLContext
    /// `RequireAnyClientCert`: a certificate is required and not verified.
    private let acceptsAnyClientCertificate: Bool
    /// `client_allowed_sans`: a client certificate must name one of these; empty: any.
    private let allowedNames: Set<String>

    init(_ tls: WebConfiguration.TLS, in path: String) throws(WebConfigurationError) {
        /// Reads one PEM, saying which when it cannot.
        func load<Value>(_ what: String, _ pem: WebConfiguration.PEM, _ read: ([UInt8]) throws -> Value)
            throws(WebConfigurationError) -> Value
        {
            do {
                switch pem {
                case .file(let file): return try read(try Self.bytes(of: file))
                case .inline(let text): return try read(Array(text.utf8))
                }
            } catch {
                throw WebConfigurationError(path: path, reason: "cannot read the \(what) \(pem.name): \(error)")
            }
        }
        let chain = try load("certificate", tls.certificate) { try NIOSSLCertificate.fromPEMBytes($0) }
        let key = try load("key", tls.key) { try NIOSSLPrivateKey(bytes: $0, format: .pem) }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map(NIOSSLCertificateSource.certificate), privateKey: .privateKey(key))
        // A close sends close_notify and waits this long for the peer's, not swift-nio-ssl's 5 s: Go's servers do not
        // wait at all, and a stop with Prometheus' kept-alive connection open took 5 s.
        configuration.shutdownTimeout = .milliseconds(100)
        configuration.minimumTLSVersion = Self.version(tls.minimumVersion)
        configuration.maximumTLSVersion = tls.maximumVersion.map(Self.version)
        if let ca = tls.clientCA {
            configuration.trustRoots = .certificates(try load("client CA", ca) { try NIOSSLCertificate.fromPEMBytes($0) })
        }
        switch tls.clientAuthentication {
        case .none, .request: configuration.certificateVerification = .none
        case .verifyIfGiven: configuration.certificateVerification = .optionalVerification
        case .requireAny, .requireAndVerify: configuration.certificateVerification = .noHostnameVerification
        }
        // TLS 1.3's suites are not chosen (BoringSSL uses all three, as Go does); naming only those keeps the defaults.
        let suites = tls.cipherSuites.filter { $0 < 0x1301 || $0 > 0x1303 }
        if !suites.isEmpty { configuration.cipherSuiteValues = suites.map(NIOTLSCipher.init(rawValue:)) }
        if !tls.curves.isEmpty { configuration.curves = tls.curves.map(NIOTLSCurve.init(rawValue:)) }
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch NIOSSLError.failedToLoadPrivateKey {  // read above: so it is not the certificate's
            throw WebConfigurationError(
                path: path, reason: "the key \(tls.key.name) is not the key of the certificate \(tls.certificate.name)")
        } catch {
            throw WebConfigurationError(
                path: path,
                reason: "cannot use the certificate \(tls.certificate.name) with the key \(tls.key.name) and these settings: \(error)")
        }
        acceptsAnyClientCertificate = tls.clientAuthentication == .requireAny
        allowedNames = Set(tls.clientAllowedNames)
    }

    /// A PEM file's bytes, at most 1 MiB.
    private static func bytes(of file: String) throws -> [UInt8] {
        guard let bytes = SmallFile.bytes(file, limit: WebConfiguration.largest + 1) else { throw Unreadable.cannotBeRead }
        guard bytes.count <= WebConfiguration.largest else { throw Unreadable.longerThan1MiB }
        return bytes
    }

    /// Why a PEM file was not read.
    private enum Unreadable: Error, CustomStringConvertible {
        case cannotBeRead, longerThan1MiB

        var description: String { self == .cannotBeRead ? "it cannot be read" : "it is longer than 1 MiB" }
    }

    /// The handler a new connection's pipeline starts with.
    func handler() -> NIOSSLServerHandler {
        guard acceptsAnyClientCertificate else { return NIOSSLServerHandler(context: context) }
        return NIOSSLServerHandler(context: context) { _, verified in verified.succeed(.certificateVerified) }
    }

    /// The handler that closes a connection whose client certificate names none of `client_allowed_sans`, as soon
    /// as its handshake ends; `nil` when any is allowed.
    func nameCheck() -> ClientNameCheck? {
        allowedNames.isEmpty ? nil : ClientNameCheck(allowed: allowedNames)
    }

    private static func version(_ version: WebConfiguration.TLSVersion) -> TLSVersion {
        switch version {
        case .tls10: .tlsv1
        case .tls11: .tlsv11
        case .tls12: .tlsv12
        case .tls13: .tlsv13
        }
    }
}
