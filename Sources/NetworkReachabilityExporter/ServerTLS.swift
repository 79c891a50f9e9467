import NIOCore
import NIOSSL

/// The TLS of a web configuration, made into a context once per reading: the server's certificate and key, the
/// versions allowed, and whether and how a client's certificate is asked for and verified.
package struct ServerTLS: Sendable {
    let context: NIOSSLContext
    /// `RequireAnyClientCert`: a certificate is required and not verified.
    private let acceptsAnyClientCertificate: Bool

    init(_ tls: WebConfiguration.TLS, in path: String) throws(WebConfigurationError) {
        /// Reads one file, saying which when it cannot.
        func load<Value>(_ what: String, _ file: String, _ read: () throws -> Value) throws(WebConfigurationError) -> Value {
            do {
                return try read()
            } catch {
                throw WebConfigurationError(path: path, reason: "cannot read the \(what) \(file): \(error)")
            }
        }
        let chain = try load("certificate", tls.certificateFile) { try NIOSSLCertificate.fromPEMFile(tls.certificateFile) }
        let key = try load("key", tls.keyFile) { try NIOSSLPrivateKey(file: tls.keyFile, format: .pem) }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map(NIOSSLCertificateSource.certificate), privateKey: .privateKey(key))
        configuration.minimumTLSVersion = Self.version(tls.minimumVersion)
        configuration.maximumTLSVersion = tls.maximumVersion.map(Self.version)
        if let ca = tls.clientCAFile {
            configuration.trustRoots = .certificates(try load("client CA", ca) { try NIOSSLCertificate.fromPEMFile(ca) })
        }
        switch tls.clientAuthentication {
        case .none, .request: configuration.certificateVerification = .none
        case .verifyIfGiven: configuration.certificateVerification = .optionalVerification
        case .requireAny, .requireAndVerify: configuration.certificateVerification = .noHostnameVerification
        }
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch NIOSSLError.failedToLoadPrivateKey {  // read above: so it is not the certificate's
            throw WebConfigurationError(
                path: path, reason: "the key \(tls.keyFile) is not the key of the certificate \(tls.certificateFile)")
        } catch {
            throw WebConfigurationError(
                path: path, reason: "cannot use the certificate \(tls.certificateFile) with the key \(tls.keyFile): \(error)")
        }
        acceptsAnyClientCertificate = tls.clientAuthentication == .requireAny
    }

    /// The handler a new connection's pipeline starts with.
    func handler() -> NIOSSLServerHandler {
        guard acceptsAnyClientCertificate else { return NIOSSLServerHandler(context: context) }
        return NIOSSLServerHandler(context: context) { _, verified in verified.succeed(.certificateVerified) }
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
