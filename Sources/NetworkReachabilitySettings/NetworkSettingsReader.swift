@_exported import NetworkReachabilityKit
public import Logging
import NetworkReachabilityCore
import NetworkReachabilityLinux
import NetworkReachabilityPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads the per-network settings files and gives every path this process reports its network's label and
/// overrides: `NetworkIdentity.label`, `NetworkIdentity.isMetered` (which decides `ReachabilityPath.isExpensive`) and
/// `NetworkIdentity.validationURL`.
///
/// ```swift
/// import NetworkReachabilitySettings
///
/// NetworkSettingsReader.start(logger: logger)
/// let path = try NetworkReachability().currentSnapshot().path
/// print(path.network?.summary ?? "unknown network", path.isExpensive)   // "home (a3f9…) false"
/// ```
///
/// The host's file is `/etc/reach/networks` (``hostFile``; `REACH_NETWORKS` names another); a user other than root
/// also has `$XDG_CONFIG_HOME/reach/networks` (`~/.config/reach/networks`, ``userFile``), whose settings go over the
/// host's, field by field. The format is YAML, a mapping from network ids to `label`, `metered` and `validate`
/// (the module's overview has an example). A file is believed only when
/// nobody but root (or, for the user's own, that user) could have written it or its directory; one that another user
/// could write is refused, with one error, and says nothing.
///
/// Changes are seen through inotify on the files' directories, never polled: a file written, replaced, removed or
/// made takes effect at once, and listeners hear the paths whose settings changed. A file that becomes malformed
/// logs one error naming its line and keeps the settings it last gave; one that becomes refused gives none.
public final class NetworkSettingsReader: Sendable {
    /// One file the reader takes settings from, and who may own it.
    package struct Location: Sendable, Hashable {
        package let path: String
        package let owners: Set<UInt32>
        package init(path: String, owners: Set<UInt32>) {
            self.path = path
            self.owners = owners
        }
    }

    private struct State {
        /// What each file last gave that could be taken, by position in `locations`.
        var entries: [[(id: String, settings: NetworkSettings)]]
        /// Each file's problem now, by position.
        var problems: [NetworkSettingsError?]
        var handler: (@Sendable () -> Void)?
    }

    private let locations: [Location]
    private let state: Locked<State>
    private let logger: Logger
    private let stopDescriptor: Int32
    private let thread = Locked<DedicatedThread?>(nil)

    // MARK: - Starting

    private static let shared = Locked<NetworkSettingsReader?>(nil)

    /// Reads the settings files for every `NetworkReachability` of this process, once, and follows their changes;
    /// later calls return the same reader. The files are read before it returns, so the next read of a path has them.
    ///
    /// - Parameter logger: where a file's problems (malformed, refused) are logged, once per change.
    @discardableResult
    public static func start(logger: Logger = NetworkReachability.silentLogger) -> NetworkSettingsReader {
        shared.withLock { shared in
            if let shared { return shared }
            let reader = NetworkSettingsReader(locations: defaultLocations, monitor: .system, logger: logger)
            shared = reader
            return reader
        }
    }

    /// The host's settings file: `REACH_NETWORKS` when it names an absolute path, else `/etc/reach/networks`.
    public static var hostFile: String {
        if let named = getenv("REACH_NETWORKS").map({ String(cString: $0) }), named.hasPrefix("/") { return named }
        return "/etc/reach/networks"
    }

    /// The user's own settings file, `$XDG_CONFIG_HOME/reach/networks` or `$HOME/.config/reach/networks`; `nil` for
    /// root, whose settings are the host's.
    public static var userFile: String? {
        guard geteuid() != 0 else { return nil }
        if let config = getenv("XDG_CONFIG_HOME").map({ String(cString: $0) }), config.hasPrefix("/") {
            return config + "/reach/networks"
        }
        guard let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/"), home != "/" else { return nil }
        return home + "/.config/reach/networks"
    }

    /// The file ``record(_:for:in:)`` writes by default: the user's own, or for root the host's.
    public static var recordedFile: String { userFile ?? hostFile }

    /// The host's file (owned by root; a file `REACH_NETWORKS` names may also be the user's), then the user's.
    static var defaultLocations: [Location] {
        let user = UInt32(geteuid())
        let host = Location(path: hostFile, owners: hostFile == "/etc/reach/networks" ? [0] : [0, user])
        return [host] + (userFile.map { [Location(path: $0, owners: [0, user])] } ?? [])
    }

    /// Reads `locations` (later ones over earlier ones) for `monitor`'s paths: tests give their own files and a
    /// namespace's or a simulated network's monitor.
    package init(locations: [Location], monitor: ReachabilityMonitor, logger: Logger = NetworkReachability.silentLogger) {
        self.locations = locations
        self.logger = logger
        state = Locked(State(entries: locations.map { _ in [] }, problems: locations.map { _ in nil }))
        stopDescriptor = SystemCall.wakeDescriptor()
        reload(isFirst: true)
        monitor.attach(self)
        let inotify = SystemCall.inotifyDescriptor()
        guard inotify >= 0 else {
            logger.warning("cannot watch the network settings files; changes are read at the next start")
            return
        }
        do {
            let started = try DedicatedThread(name: "network-settings") { [self] in run(inotify) }
            thread.withLock { $0 = started }
        } catch {
            SystemCall.close(inotify)
            logger.warning("cannot watch the network settings files: \(error)")
        }
    }

    deinit { SystemCall.close(stopDescriptor) }

    /// Stops following the files, for tests; the settings stay as they were. The process-wide reader of
    /// ``start(logger:)`` follows them for as long as the process lives.
    package func stop() {
        SystemCall.signalEvent(stopDescriptor)
        thread.withLock { thread in
            defer { thread = nil }
            return thread
        }?.join()
    }

    // MARK: - What it knows

    /// Every network the files name, in the files' order (the host's first), each with its settings in force.
    public var known: [KnownNetwork] {
        state.withLock { state in
            var merged: [String: KnownNetwork] = [:]
            var order: [String] = []
            for (position, entries) in state.entries.enumerated() {
                for (id, settings) in entries {
                    if let known = merged[id] {
                        merged[id] = KnownNetwork(id: id, settings: known.settings.overridden(by: settings), file: locations[position].path)
                    } else {
                        merged[id] = KnownNetwork(id: id, settings: settings, file: locations[position].path)
                        order.append(id)
                    }
                }
            }
            return order.compactMap { merged[$0] }
        }
    }

    /// Each file's problem now (malformed, refused), one per file; empty when every file is taken or absent.
    public var problems: [NetworkSettingsError] { state.withLock { $0.problems.compactMap { $0 } } }

    /// The settings in force for the network `id`: the user's file over the host's.
    public func settings(for id: String) -> NetworkSettings? {
        state.withLock { state in
            var found: NetworkSettings?
            for entries in state.entries {
                for entry in entries where entry.id == id { found = (found ?? NetworkSettings()).overridden(by: entry.settings) }
            }
            return found
        }
    }

    // MARK: - Reading

    /// Reads every file again; calls the handler when what is in force changed.
    private func reload(isFirst: Bool = false) {
        let read = locations.map(Self.read)
        let (changed, handler, logged) = state.withLock { state -> (Bool, (@Sendable () -> Void)?, [NetworkSettingsError]) in
            var changed = false
            var logged: [NetworkSettingsError] = []
            for (position, outcome) in read.enumerated() {
                let problem: NetworkSettingsError?
                switch outcome {
                case .success(let entries):
                    problem = nil
                    if !entries.elementsEqual(state.entries[position], by: { $0.id == $1.id && $0.settings == $1.settings }) {
                        state.entries[position] = entries
                        changed = true
                    }
                case .failure(let error):
                    problem = error
                    // A malformed file keeps what it last gave; a refused one gives nothing.
                    if case .refused = error, !state.entries[position].isEmpty {
                        state.entries[position] = []
                        changed = true
                    }
                }
                if problem != state.problems[position], let problem { logged.append(problem) }
                state.problems[position] = problem
            }
            return (changed, state.handler, logged)
        }
        for problem in logged {
            if case .malformed = problem, !isFirst {
                logger.error("\(problem); the settings it gave before stay in force")
            } else {
                logger.error("\(problem)")
            }
        }
        if changed { handler?() }
    }

    /// What one file says now: its networks (none when it is absent), or why it is not taken.
    private static func read(_ location: Location) -> Result<[(id: String, settings: NetworkSettings)], NetworkSettingsError> {
        switch TrustedFile.contents(of: location.path, owners: location.owners, limit: NetworkSettingsFile.sizeLimit) {
        case .absent: return .success([])
        case .refused(let reason): return .failure(.refused(path: location.path, reason: reason))
        case .read(let bytes):
            do throws(NetworkSettingsError) {
                return .success(try NetworkSettingsFile.parse(String(decoding: bytes, as: UTF8.self), path: location.path))
            } catch {
                return .failure(error)
            }
        }
    }

    // MARK: - Following changes

    /// Waits on inotify for a change in a file's directory (or, while it does not exist, the nearest directory above
    /// it that does), and reads the files again after each.
    private func run(_ inotify: Int32) {
        defer { SystemCall.close(inotify) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            for location in locations { watch(location.path, with: inotify) }
            var descriptors = [
                pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
            ]
            _ = try? SystemCall.run("poll") { poll(&descriptors, 2, -1) }
            if descriptors[0].revents != 0 { return }
            while SystemCall.readAvailable(inotify, into: &buffer) != nil {}
            reload()
        }
    }

    /// Watches the directory of `path`, or the nearest one above it that exists (where it will be made).
    private func watch(_ path: String, with inotify: Int32) {
        var directory = TrustedFile.directory(of: path)
        while SystemCall.addWatch(inotify, path: directory, mask: SystemCall.inotifyChangeMask) == nil {
            guard directory != "/", directory != "." else { return }
            directory = TrustedFile.directory(of: directory)
        }
    }
}

extension NetworkSettingsReader: NetworkSettingsSource {
    /// Sets the one handler called, on the reading thread, when the settings in force changed.
    package func onChange(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.handler = handler }
    }
}
