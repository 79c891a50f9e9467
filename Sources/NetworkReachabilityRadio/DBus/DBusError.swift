import NetworkReachabilityLinux
/// Why a D-Bus exchange failed: bytes that break the wire protocol, a refused authentication, an error reply, a
/// timeout, or the connection's end.
package enum DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Bytes that do not follow the wire protocol; the words say where.
    case malformed(String)
    /// The bus address cannot be used (only `unix:path=` and `unix:abstract=` are).
    case unsupportedAddress(String)
    /// The bus did not accept our EXTERNAL authentication.
    case authenticationRejected(String)
    /// The peer answered with an error.
    case errorReply(name: String, message: String)
    /// No answer within the time allowed.
    case timedOut(method: String, milliseconds: Int)
    /// The bus closed the connection.
    case disconnected
    /// A system call failed.
    case system(String)

    package var description: String {
        switch self {
        case .malformed(let words): "malformed D-Bus message: \(words)"
        case .unsupportedAddress(let address): "unsupported D-Bus address \(address)"
        case .authenticationRejected(let line): "the bus rejected authentication: \(line)"
        case .errorReply(let name, let message): message.isEmpty ? name : "\(name): \(message)"
        case .timedOut(let method, let milliseconds): "no answer to \(method) within \(milliseconds) ms"
        case .disconnected: "the bus closed the connection"
        case .system(let words): words
        }
    }
}
