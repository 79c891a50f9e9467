import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import NetworkReachabilityPOSIX

/// Who may talk to `reach serve`, and how it answers, from its web configuration: the TLS every new connection is
/// wrapped in, the users a request must be one of, the paths that need none, the headers of every answer and the
/// rate limit. Read at start, again on SIGHUP (``reload()``), and again when a request or a new connection finds the
/// file or a certificate or key it names changed (``reloadIfChanged()``), as exporter-toolkit reads it per request. A
/// connection takes the TLS current when it opens, so certificates that were renewed serve the next connection;
/// each request is checked against the users current when it arrives, so a revoked or rotated password stops working
/// at once, also on a connection kept alive from before.
package final class WebAccess: Sendable {
    /// What one reading of the configuration gives.
    package struct Current: Sendable {
        package var tls: ServerTLS?
        package var authentication: BasicAuthentication?
        /// Paths answered without a password (`basic_auth_excluded_paths`).
        var unauthenticatedPaths: Set<String> = []
        /// Headers every answer carries (`http_server_config.headers`).
        var headers: [(name: String, value: String)] = []
        /// The requests allowed, when `rate_limit` is set.
        var rateLimit: RateLimiter?
        /// What the file asks that this server does not do, a sentence each.
        package var notes: [String] = []
    }

    /// The configuration file, when `--web-config` names one.
    package let path: String?
    private let current: NIOLockedValueBox<State>
    /// What is served, the files whose change makes a reading (the configuration's and the PEM files its served
    /// reading names), and their versions at the last reading, successful or not.
    private struct State {
        var served: Current
        var files: [String]
        var versions: [[Int64]?]
    }
    private let readings = NIOLockedValueBox(0)
    /// Told the outcome of every reading after the first: `nil` when it is served, else why not.
    private let whenRead: @Sendable (WebConfigurationError?) -> Void

    /// Reads `path` (none: plain HTTP, no authentication); `whenRead` hears how each later reading went.
    ///
    /// - Throws: ``WebConfigurationError`` naming the file and what is wrong.
    package init(path: String?, whenRead: @escaping @Sendable (WebConfigurationError?) -> Void = { _ in })
        throws(WebConfigurationError)
    {
        self.path = path
        self.whenRead = whenRead
        let files = path.map { [$0] } ?? []
        let versions = files.map(SmallFile.version)
        let (served, named) = try Self.read(path)
        current = NIOLockedValueBox(State(served: served, files: files + named, versions: versions + named.map(SmallFile.version)))
    }

    /// What connections opening now are served with.
    package var now: Current { current.withLockedValue { $0.served } }

    /// Reads the file again and tells `whenRead`; keeps serving with what was read before when it cannot be used or
    /// would take away TLS or every user (an empty or half-written file reads as neither): a reload never opens the
    /// server further; only a restart with the new file does.
    @discardableResult
    package func reload() -> WebConfigurationError? {
        readAndTell()
    }

    /// How many times the file was read again (successfully or not), each after `whenRead` heard of it: a rendering
    /// of `/metrics` made before the last is not served again, so the reload series are always current.
    var readCount: Int { readings.withLockedValue { $0 } }

    /// Reads the file again when it, or a certificate, key or CA file it names, changed since the last reading (one
    /// `stat` a file), successful or not: a file that cannot be used is tried again only once it changes again.
    package func reloadIfChanged() {
        guard path != nil else { return }
        let changed = current.withLockedValue { state in
            let versions = state.files.map(SmallFile.version)
            guard state.versions != versions else { return false }
            state.versions = versions  // tried once per change, also when it fails
            return true
        }
        if changed { readAndTell() }
    }

    /// Reads the file, tells `whenRead`, then counts the reading.
    @discardableResult
    private func readAndTell() -> WebConfigurationError? {
        let failure = read()
        whenRead(failure)
        readings.withLockedValue { $0 += 1 }
        return failure
    }

    private func read() -> WebConfigurationError? {
        let configurationVersion: [Int64]? = path.flatMap(SmallFile.version)
        do throws(WebConfigurationError) {
            let (fresh, named) = try Self.read(path)
            let before = now
            if before.tls != nil && fresh.tls == nil {
                throw WebConfigurationError(
                    path: path ?? "", reason: "has no tls_server_config, so it would serve plain HTTP: restart to drop TLS")
            }
            if before.authentication != nil && fresh.authentication == nil {
                throw WebConfigurationError(
                    path: path ?? "", reason: "has no basic_auth_users, so it would serve anyone: restart to drop them")
            }
            let files = (path.map { [$0] } ?? []) + named
            current.withLockedValue {
                $0 = State(served: fresh, files: files, versions: [configurationVersion] + named.map(SmallFile.version))
            }
            return nil
        } catch {
            // Not tried again until a file changes again: the versions as they were when this reading began.
            current.withLockedValue { state in
                state.versions = [configurationVersion] + state.files.dropFirst().map(SmallFile.version)
            }
            return error
        }
    }

    /// What `path` serves, and the PEM files it names.
    private static func read(_ path: String?) throws(WebConfigurationError) -> (Current, [String]) {
        guard let path else { return (Current(), []) }
        let configuration = try WebConfiguration(path: path)
        let named = configuration.tls.map { tls in
            [tls.certificate, tls.key, tls.clientCA].compactMap { pem -> String? in
                if case .file(let file) = pem { return file }
                return nil
            }
        }
        let current = Current(
            tls: try configuration.tls.map { (tls) throws(WebConfigurationError) in try ServerTLS(tls, in: path) },
            authentication: configuration.users.isEmpty ? nil : BasicAuthentication(users: configuration.users),
            unauthenticatedPaths: configuration.unauthenticatedPaths, headers: configuration.headers,
            rateLimit: configuration.rateLimit.map(RateLimiter.init), notes: configuration.notes)
        return (current, named ?? [])
    }
}
