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
/// Changes are seen through inotify on the files' directories (and a linked file's target's), never polled: a file
/// written and closed, replaced or made takes effect at once, and listeners hear the paths whose settings changed. A
/// file that becomes malformed logs one error naming its line and keeps the settings it last gave; one that becomes
/// refused gives none at once; one removed (or emptied) gives none after 2 s, unless it is back by then.
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
        /// Since when (monotonic milliseconds) each file that gave settings has been missing, by position.
        var missingSince: [Int?]
        /// How many times the files were read.
        var reads = 0
        var handler: (@Sendable () -> Void)?
    }

    /// What one read of a file found.
    private enum Reading {
        case missing
        case entries([(id: String, settings: NetworkSettings)])
        case problem(NetworkSettingsError)
    }

    /// How long the settings of a file that went missing stay in force, in case it comes back: an editor's save
    /// (the old file renamed away, the new one written) or a tool's remove-and-write changes nothing.
    package static let missingGrace = Duration.seconds(2)

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

    /// The host's settings file: the one `REACH_NETWORKS` names (a relative path from the working directory), else
    /// `/etc/reach/networks`.
    public static var hostFile: String {
        guard let named = getenv("REACH_NETWORKS").map({ String(cString: $0) }), !named.isEmpty else {
            return "/etc/reach/networks"
        }
        guard !named.hasPrefix("/"), let directory = getcwd(nil, 0) else { return named }
        defer { free(directory) }
        return String(cString: directory) + "/" + named
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
        state = Locked(
            State(
                entries: locations.map { _ in [] }, problems: locations.map { _ in nil },
                missingSince: locations.map { _ in nil }))
        stopDescriptor = SystemCall.wakeDescriptor()
        reload(isFirst: true)
        monitor.attach(self)
        do {
            let started = try DedicatedThread(name: "net-settings") { [self] in
                guard let watch = SettingsFileWatch(paths: locations.map(\.path)) else {
                    logger.warning("cannot watch the network settings files; changes are read at the next start")
                    return
                }
                run(watch)
            }
            thread.withLock { $0 = started }
        } catch {
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

    /// How many times the files were read, for tests that wait for a read that changed nothing.
    package var reads: Int { state.withLock { $0.reads } }

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

    /// Reads every file again; calls the handler when what is in force changed. Returns when a missing file's
    /// settings lapse (monotonic milliseconds), if one's are still in force.
    @discardableResult
    private func reload(isFirst: Bool = false) -> Int? {
        let read = locations.map(Self.read)
        let now = MonotonicClock.milliseconds()
        let grace = Int(Self.missingGrace.saturatingMilliseconds)
        let (changed, handler, logged, lapse) = state.withLock {
            state -> (Bool, (@Sendable () -> Void)?, [NetworkSettingsError], Int?) in
            var changed = false
            var logged: [NetworkSettingsError] = []
            var lapse: Int?
            state.reads += 1
            for (position, reading) in read.enumerated() {
                var problem: NetworkSettingsError?
                var taken: [(id: String, settings: NetworkSettings)]?
                switch reading {
                case .missing:
                    // Kept a moment, in case it comes back (an editor's save); gone for good after that.
                    let since = state.missingSince[position] ?? now
                    if isFirst || state.entries[position].isEmpty || now - since >= grace {
                        taken = []
                        state.missingSince[position] = nil
                    } else {
                        state.missingSince[position] = since
                        lapse = min(lapse ?? .max, since + grace)
                    }
                case .entries(let entries):
                    taken = entries
                    state.missingSince[position] = nil
                case .problem(let error):
                    problem = error
                    state.missingSince[position] = nil
                    // A malformed file keeps what it last gave; a refused one gives nothing.
                    if case .refused = error { taken = [] }
                }
                if let taken, !taken.elementsEqual(state.entries[position], by: { $0.id == $1.id && $0.settings == $1.settings }) {
                    state.entries[position] = taken
                    changed = true
                }
                if problem != state.problems[position], let problem { logged.append(problem) }
                state.problems[position] = problem
            }
            return (changed, state.handler, logged, lapse)
        }
        for problem in logged {
            if case .malformed = problem, !isFirst {
                logger.error("\(problem); the settings it gave before stay in force")
            } else {
                logger.error("\(problem)")
            }
        }
        if changed { handler?() }
        return lapse
    }

    /// What one file says now: its networks, that it is missing, or why it is not taken.
    private static func read(_ location: Location) -> Reading {
        switch TrustedFile.contents(of: location.path, owners: location.owners, limit: NetworkSettingsFile.sizeLimit) {
        case .absent: return .missing
        case .refused(let reason): return .problem(.refused(path: location.path, reason: reason))
        // Empty, as while `>` truncated it and has not written yet: as good as missing for a moment.
        case .read(let bytes) where bytes.isEmpty: return .missing
        case .read(let bytes):
            do throws(NetworkSettingsError) {
                return .entries(try NetworkSettingsFile.parse(bytes, path: location.path))
            } catch {
                return .problem(error)
            }
        }
    }

    // MARK: - Following changes

    /// Waits for a change `watch` tells of (or for a missing file's settings to lapse), and reads the files again.
    private func run(_ watch: SettingsFileWatch) {
        // What changed between the first read and the first watch.
        var lapse = reload()
        while true {
            var descriptors = [
                pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: watch.descriptor, events: Int16(POLLIN), revents: 0),
            ]
            let timeout = lapse.map { Int32(clamping: max(0, $0 - MonotonicClock.milliseconds())) } ?? -1
            _ = try? SystemCall.run("poll") { poll(&descriptors, 2, timeout) }
            if descriptors[0].revents != 0 { return }
            let changed = watch.drain()
            let lapsed = lapse.map { $0 <= MonotonicClock.milliseconds() } ?? false
            guard changed || lapsed else { continue }
            watch.rearm()
            lapse = reload()
        }
    }
}

extension NetworkSettingsReader: NetworkSettingsSource {
    /// Sets the one handler called, on the reading thread, when the settings in force changed.
    package func onChange(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.handler = handler }
    }
}
