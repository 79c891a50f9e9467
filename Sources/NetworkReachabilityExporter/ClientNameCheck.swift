import NIOCore
import NIOSSL
import NIOTLS
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `client_allowed_sans`: closes a TLS connection whose client certificate has no subject alternative name (DNS
/// name, IP address, e-mail address or URI) among the allowed, as exporter-toolkit does, once the handshake has
/// verified the certificate. Nothing the client sends passes it before then.
final class ClientNameCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let allowed: Set<String>
    private var passed = false

    init(allowed: Set<String>) {
        self.allowed = allowed
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            let certificate = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self).peerCertificate
            passed = certificate.map { Self.names(of: $0).contains { allowed.contains($0) } } ?? false
            guard passed else {
                context.fireErrorCaught(ServeSeries.HandshakeFailure.clientName)  // counted, and the connection closed
                context.close(promise: nil)
                return
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard passed else { return }
        context.fireChannelRead(data)
    }

    /// A certificate's subject alternative names as text: an IP address as `inet_ntop` writes it.
    static func names(of certificate: NIOSSLCertificate) -> [String] {
        certificate._subjectAlternativeNames().compactMap { name in
            name.contents.withUnsafeBufferPointer { bytes -> String? in
                switch name.nameType {
                case .ipAddress:
                    let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : -1
                    guard family != -1 else { return nil }
                    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                    guard inet_ntop(family, bytes.baseAddress, &text, socklen_t(text.count)) != nil else { return nil }
                    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                default:
                    return String(validating: bytes, as: UTF8.self)
                }
            }
        }
    }
}
