import NetworkReachabilityPOSIX
/// What is known of each host name: its latest resolution, how many registrations watch it, and how long a
/// resolution of it may take. Names are resolved again when asked (a network or resolver change).
package final class HostDirectory: Sendable {
    /// Names nobody watches are kept for synchronous reads, up to this many.
    static let unwatchedCapacity = 1024

    private struct Entry {
        var resolution: HostResolution
        var watchers = 0
        var timeout: Duration
        /// Whether a resolution was ever asked for: a newly watched name waits until its pending state
        /// has been delivered, so listeners always hear `unknown` first.
        var started = false
    }

    // Guarded by its lock; never held while calling the change handler.
    private let entries = Locked([HostName: Entry]())
    private let changeHandler = Locked<ChangeHandler<HostName>?>(nil)
    private let resolverBox = Locked<(any NameResolving)?>(nil)

    /// - Parameter makeResolver: makes what resolves names and reports to the given closure: the platform's
    ///   resolver on background lanes (``HostResolver``), or a simulated network's table.
    package init(makeResolver: (@escaping HostResolver.Report) -> any NameResolving) {
        let resolver = makeResolver { [weak self] name, outcome in self?.record(name, outcome) }
        resolverBox.withLock { $0 = resolver }
    }

    private var resolver: (any NameResolving)? { resolverBox.withLock { $0 } }

    /// Calls `handler` whenever a name's resolution changes (from a resolver thread).
    func onChange(_ handler: @escaping @Sendable (HostName) -> Void) {
        changeHandler.withLock { $0 = ChangeHandler(handler) }
    }

    // MARK: - Watching

    /// A registration starts watching `name`; resolution begins with ``beginResolving(_:)``.
    func watch(_ name: HostName, timeout: Duration) {
        entries.withLock { entries in
            var entry = entries[name] ?? Entry(resolution: HostResolution(name: name.name, state: .pending), timeout: timeout)
            entry.watchers += 1
            entry.timeout = min(entry.timeout, timeout)
            entries[name] = entry
        }
    }

    /// Starts the first resolution of `name` unless one was already asked for.
    func beginResolving(_ name: HostName) {
        let timeout: Duration? = entries.withLock { entries in
            guard var entry = entries[name], !entry.started else { return nil }
            entry.started = true
            entries[name] = entry
            return entry.timeout
        }
        if let timeout { resolver?.resolve(name, timeout: timeout) }
    }

    /// A registration stops watching `name`.
    func unwatch(_ name: HostName) {
        entries.withLock { entries in
            entries[name]?.watchers -= 1
        }
    }

    /// Resolves every watched name again: the network or the resolver configuration changed.
    func refreshWatched() {
        // A loop, not `filter` and `map`: every change passes here, most with no host watched, and those built
        // a dictionary and an array each time.
        let due = entries.withLock { entries in
            var due: [(HostName, Duration)] = []
            for (name, entry) in entries where entry.watchers > 0 && entry.started { due.append((name, entry.timeout)) }
            return due
        }
        for (name, timeout) in due { resolver?.resolve(name, timeout: timeout) }
    }

    // MARK: - Reading

    /// The latest resolution of `name`: pending before the first ends, unless the resolver answered while asked.
    ///
    /// - Parameter refresh: ask again in the background (a synchronous read, which no subscription keeps current).
    func resolution(of name: HostName, timeout: Duration, refresh: Bool) -> HostResolution {
        let (resolution, isNew): (HostResolution, Bool) = entries.withLock { entries in
            if let entry = entries[name] { return (entry.resolution, false) }
            if entries.count >= Self.unwatchedCapacity {
                entries = entries.filter { $0.value.watchers > 0 }
            }
            let pending = HostResolution(name: name.name, state: .pending)
            entries[name] = Entry(resolution: pending, timeout: timeout, started: true)
            return (pending, true)
        }
        guard isNew || refresh else { return resolution }
        resolver?.resolve(name, timeout: timeout)
        // A resolver that answers at once (a simulated network's table) has answered: its answer, not pending.
        return entries.withLock { $0[name]?.resolution } ?? resolution
    }

    private func record(_ name: HostName, _ outcome: HostResolver.Outcome) {
        let changed: Bool = entries.withLock { entries in
            guard var entry = entries[name] else { return false }
            let resolution: HostResolution
            switch outcome {
            case .resolved(let addresses): resolution = HostResolution(name: name.name, state: .resolved, addresses: addresses)
            case .noAddress(let why): resolution = HostResolution(name: name.name, state: .resolved, failure: why)
            case .failed(let why): resolution = HostResolution(name: name.name, state: .failed, failure: why)
            case .timedOut: resolution = HostResolution(name: name.name, state: .timedOut, failure: "timed out")
            }
            guard resolution != entry.resolution else { return false }
            entry.resolution = resolution
            entries[name] = entry
            return true
        }
        if changed, let handler = changeHandler.withLock({ $0 }) { handler.call(name) }
    }
}
