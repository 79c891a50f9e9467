import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// Who may talk to `reach serve`, from its web configuration: the TLS every new connection is wrapped in, and the
/// users a request must be one of. Read at start and again on SIGHUP (``reload()``). A connection takes the TLS
/// current when it opens, so certificates that were renewed serve the next connection; each request is checked
/// against the users current when it arrives, so a revoked or rotated password stops working at once, also on a
/// connection kept alive from before.
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

    /// Reads the file again; returns the error, and keeps serving with what was read before, when it cannot be used
    /// or would take away TLS or every user (an empty or half-written file reads as neither): a reload never opens
    /// the server further; only a restart with the new file does.
    package func reload() -> WebConfigurationError? {
        do throws(WebConfigurationError) {
            let fresh = try Self.read(path)
            let before = now
            if before.tls != nil && fresh.tls == nil {
                throw WebConfigurationError(
                    path: path ?? "", reason: "has no tls_server_config, so it would serve plain HTTP: restart to drop TLS")
            }
            if before.authentication != nil && fresh.authentication == nil {
                throw WebConfigurationError(
                    path: path ?? "", reason: "has no basic_auth_users, so it would serve anyone: restart to drop them")
            }
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
