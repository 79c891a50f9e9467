import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// Who may talk to `reach serve`, from its web configuration: the TLS every new connection is wrapped in, and the
/// users a request must be one of. Read at start and again on SIGHUP (``reload()``); a connection takes what is
/// current when it opens, so certificates that were renewed serve the next connection.
package final class WebAccess: Sendable {
    /// What one reading of the configuration gives.
    package struct Current: Sendable {
        package var tls: ServerTLS?
        package var authentication: BasicAuthentication?
    }

    /// The configuration file, when `--web-config` names one.
    package let path: String?
    private let current: NIOLockedValueBox<Current>

    /// Reads `path` (none: plain HTTP, no authentication).
    ///
    /// - Throws: ``WebConfigurationError`` naming the file and what is wrong.
    package init(path: String?) throws(WebConfigurationError) {
        self.path = path
        current = NIOLockedValueBox(try Self.read(path))
    }

    /// What connections opening now are served with.
    package var now: Current { current.withLockedValue { $0 } }

    /// Reads the file again; returns the error, and keeps serving with what was read before, when it cannot be used.
    package func reload() -> WebConfigurationError? {
        do {
            let fresh = try Self.read(path)
            current.withLockedValue { $0 = fresh }
            return nil
        } catch {
            return error
        }
    }

    private static func read(_ path: String?) throws(WebConfigurationError) -> Current {
        guard let path else { return Current() }
        let configuration = try WebConfiguration(path: path)
        return Current(
            tls: try configuration.tls.map { (tls) throws(WebConfigurationError) in try ServerTLS(tls, in: path) },
            authentication: configuration.users.isEmpty ? nil : BasicAuthentication(users: configuration.users))
    }
}
