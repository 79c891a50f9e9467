import NetworkReachabilityPOSIX
/// Runs `getaddrinfo` off every caller's thread: on a few serial lanes (so at most one blocked thread each),
/// with at most one resolution in flight per name and a timeout of our own (glibc's retries can take far longer).
package final class HostResolver: NameResolving {
    /// What one resolution found.
    package enum Outcome: Sendable, Hashable {
        /// Addresses in `getaddrinfo`'s order.
        case resolved([IPAddress])
        /// The name exists but has no address.
        case noAddress(String)
        /// The lookup failed: no such name, no server, or another error, in the resolver's words.
        case failed(String)
        /// No answer within the timeout. A late answer is reported when it comes.
        case timedOut
    }

    /// Receives outcomes, on a lane's or the timer's thread; must not block.
    package typealias Report = @Sendable (HostName, Outcome) -> Void

    /// How many `getaddrinfo` calls may block at once, whatever the number of names.
    package static let laneCount = 4

    private struct Flight {
        var id: UInt64
        var lane: Int
        var rerun = false
        var answered = false
    }

    private struct State {
        var flights: [HostName: Flight] = [:]
        var busy = [Int](repeating: 0, count: HostResolver.laneCount)
        var nextID: UInt64 = 1
    }

    // Threads of their own, not Dispatch queues, so that the process sleeps once the lookups are done.
    private let lanes = (0..<HostResolver.laneCount).map { SerialLane(name: "resolver-\($0)") }
    private let timeouts = DeadlineTimer(name: "resolver-timer")
    // Guarded by its lock; never held while reporting.
    private let state = Locked(State())
    private let report: Report
    private let lookUp: @Sendable (String) -> Result<[IPAddress], ResolutionFailure>

    /// - Parameter lookUp: the blocking call: the platform's resolver (`getaddrinfo`), or a test's.
    package init(
        lookUp: @escaping @Sendable (String) -> Result<[IPAddress], ResolutionFailure>,
        report: @escaping Report
    ) {
        self.lookUp = lookUp
        self.report = report
    }

    /// Resolves `name` in the background. While a resolution of it runs, one more is queued instead.
    package func resolve(_ name: HostName, timeout: Duration) {
        let started: Flight? = state.withLock { state in
            if state.flights[name] != nil {
                state.flights[name]?.rerun = true
                return nil
            }
            let lane = state.busy.indices.min { state.busy[$0] < state.busy[$1] } ?? 0
            state.busy[lane] += 1
            let flight = Flight(id: state.nextID, lane: lane)
            state.nextID += 1
            state.flights[name] = flight
            return flight
        }
        if let started { run(name, started, timeout: timeout) }
    }

    private func run(_ name: HostName, _ flight: Flight, timeout: Duration) {
        let timer = timeouts.schedule(after: timeout) { [self] in expire(name, id: flight.id) }
        lanes[flight.lane].run { [self] in
            let outcome = Outcome(lookUp(name.name))
            timeouts.cancel(timer)
            finish(name, id: flight.id, outcome: outcome, timeout: timeout)
        }
    }

    private func expire(_ name: HostName, id: UInt64) {
        let expired: Bool = state.withLock { state in
            guard let flight = state.flights[name], flight.id == id, !flight.answered else { return false }
            state.flights[name]?.answered = true
            return true
        }
        if expired { report(name, .timedOut) }
    }

    private func finish(_ name: HostName, id: UInt64, outcome: Outcome, timeout: Duration) {
        let again: Flight? = state.withLock { state in
            guard let flight = state.flights[name], flight.id == id else { return nil }
            state.busy[flight.lane] -= 1
            state.flights[name] = nil
            guard flight.rerun else { return nil }
            state.busy[flight.lane] += 1
            let next = Flight(id: state.nextID, lane: flight.lane)
            state.nextID += 1
            state.flights[name] = next
            return next
        }
        report(name, outcome)
        if let again { run(name, again, timeout: timeout) }
    }

    /// Whether any lane's or the timer's thread is alive: false once every lookup has ended.
    package var hasThreads: Bool { timeouts.isRunning || lanes.contains { $0.isRunning } }
}

extension HostResolver.Outcome {
    /// The outcome of one lookup's result: no addresses, or a failure that says the name has none, is `noAddress`.
    package init(_ result: Result<[IPAddress], ResolutionFailure>) {
        switch result {
        case .success(let addresses): self = addresses.isEmpty ? .noAddress("no address") : .resolved(addresses)
        case .failure(let failure): self = failure.isNoAddress ? .noAddress(failure.message) : .failed(failure.message)
        }
    }
}

/// What the platform's resolver said when it found no address.
package struct ResolutionFailure: Error, Sendable, Hashable {
    /// The resolver's words (`gai_strerror`).
    package var message: String
    /// The name exists but has no address (`EAI_NODATA`), as opposed to a failed lookup.
    package var isNoAddress: Bool

    package init(message: String, isNoAddress: Bool) {
        self.message = message
        self.isNoAddress = isNoAddress
    }
}

/// Resolves host names in the background and reports each outcome: ``HostResolver`` with `getaddrinfo`, or a
/// simulated network's table.
package protocol NameResolving: Sendable {
    /// Resolves `name`, reporting the outcome within `timeout`.
    func resolve(_ name: HostName, timeout: Duration)
}
