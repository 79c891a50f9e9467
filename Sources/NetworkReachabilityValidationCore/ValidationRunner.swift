import NetworkReachabilityPOSIX
import Dispatch
import CoreMetrics
import Logging
import NetworkReachabilityCore

/// The state and the probing task behind a ``ConnectivityValidator``, kept apart from the public object so
/// that its task and its listener do not keep the validator alive.
///
/// Every network change (a new status or path of the watched target) ends the probing cycle in progress. When
/// the target is reachable a new cycle probes at once, then again after growing delays while the answer is not
/// `validated`; when it is not, the outcome is `notChecked` and nothing is sent.
final class ValidationRunner: Sendable {
    private enum Listener {
        case queue(DispatchQueue, @Sendable (ValidationOutcome) -> Void)
        case stream(AsyncStream<ValidationOutcome>.Continuation)
    }

    private struct State {
        var outcome = ValidationOutcome.notChecked
        /// Bumped by every network change: answers of an older cycle are dropped.
        var generation: UInt64 = 0
        var cycle: Task<Void, Never>?
        var observer: Consumer?
        var isClosed = false
        var listeners: [UInt64: Listener] = [:]
        var nextID: UInt64 = 1
    }

    let configuration: ValidationConfiguration
    let reachability: NetworkReachability
    private let prober: any ConnectivityProbing
    private let logger: Logger
    /// Probes answered, by outcome: `network_reachability_validation_probes_total{outcome=…}`, with `validated`,
    /// `captivePortal` and `limited` (``ValidationOutcome/name``), through the reachability's metrics factory.
    private let probes: [String: Counter]
    /// Releases what the validator made for itself (an HTTP client of its own), once, when it closes.
    private let closing: (@Sendable () async -> Void)?
    // Guarded by its lock. Deliveries are handed to queues and streams under it, so they keep their order;
    // neither runs user code there.
    private let state = Locked(State())

    init(
        reachability: NetworkReachability, configuration: ValidationConfiguration, prober: any ConnectivityProbing,
        logger: Logger, closing: (@Sendable () async -> Void)?
    ) {
        self.reachability = reachability
        self.configuration = configuration
        self.prober = prober
        self.logger = logger
        self.closing = closing
        probes = Dictionary(
            uniqueKeysWithValues: ["validated", "captivePortal", "limited"].map { name in
                (
                    name,
                    Counter(
                        label: Self.probesFamily.name, dimensions: [("outcome", name)], factory: reachability.metricsFactory)
                )
            })
    }

    /// The family of probes by outcome, and what it says.
    static let probesFamily = (
        name: "network_reachability_validation_probes_total",
        help: "Validation probes answered, by outcome: validated, captivePortal or limited."
    )

    /// Starts following the target's changes.
    func start() throws(ReachabilityError) {
        let observer = try reachability.addConsumer(rule: .snapshot) { [weak self] snapshot in
            self?.networkChanged(snapshot)
        } finish: { [weak self] in
            self?.close()
        }
        state.withLock { $0.observer = observer }
    }

    var outcome: ValidationOutcome { state.withLock { $0.outcome } }

    // MARK: - Probing

    private func networkChanged(_ snapshot: ReachabilitySnapshot) {
        let previous = state.withLock { state -> Task<Void, Never>? in
            guard !state.isClosed else { return nil }
            state.generation += 1
            let previous = state.cycle
            if snapshot.status.isReachable {
                let generation = state.generation
                let advertised = snapshot.path.captivePortal
                // The network's own probe URL, where its settings give one (`validate:`).
                let url = snapshot.path.network?.validationURL ?? configuration.probeURL
                state.cycle = Task { [self] in
                    await probe(url, generation: generation, advertisedPortal: advertised)
                }
            } else {
                state.cycle = nil
                publish(.notChecked, in: &state)
            }
            return previous
        }
        previous?.cancel()
    }

    /// Probes `url` until the answer is `validated` or the cycle is cancelled by a change or a close.
    private func probe(_ url: String, generation: UInt64, advertisedPortal: String?) async {
        var failures = 0
        while !Task.isCancelled {
            let response = await prober.fetch(
                url, accept: nil, timeout: configuration.timeout, bodyLimit: configuration.bodyLimit)
            let outcome: ValidationOutcome
            switch ProbeClassifier.classify(response, probeURL: url) {
            case .validated: outcome = .validated
            case .portal(let redirect):
                let loginURL: String? =
                    if let redirect { redirect } else { await loginURL(advertised: advertisedPortal) }
                outcome = .captivePortal(loginURL: loginURL)
            case .limited(let reason): outcome = .limited(reason: reason)
            }
            guard !Task.isCancelled else { return }
            logger.debug("probe of \(url): \(outcome)")
            probes[outcome.name]?.increment()
            state.withLock { state in
                guard state.generation == generation, !state.isClosed else { return }
                publish(outcome, in: &state)
            }
            if outcome == .validated { return }
            failures += 1
            try? await reachability.clock.sleep(for: configuration.retryDelay(afterFailures: failures))
        }
    }

    /// The login page the network advertised (RFC 8910): the RFC 8908 API's `user-portal-url` when the
    /// advertised URI is an API, else the URI itself.
    private func loginURL(advertised: String?) async -> String? {
        guard let advertised else { return nil }
        let answer = await prober.fetch(
            advertised, accept: "application/captive+json", timeout: configuration.timeout, bodyLimit: configuration.bodyLimit)
        if case .http(200, _, let body) = answer, let portal = ProbeClassifier.userPortalURL(fromAPIAnswer: body) {
            return portal
        }
        return advertised
    }

    /// Records a new outcome and hands it to every listener; the same outcome twice is not news.
    private func publish(_ outcome: ValidationOutcome, in state: inout State) {
        guard outcome != state.outcome else { return }
        state.outcome = outcome
        for (id, listener) in state.listeners {
            switch listener {
            case .stream(let continuation): continuation.yield(outcome)
            case .queue(let queue, let deliver):
                queue.async { [weak self] in
                    guard self?.isListening(id) == true else { return }
                    deliver(outcome)
                }
            }
        }
    }

    // MARK: - Listeners

    /// Adds a listener that hears the current outcome at once, then each new one.
    func addListener(queue: DispatchQueue, _ deliver: @escaping @Sendable (ValidationOutcome) -> Void) -> UInt64 {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.listeners[id] = .queue(queue, deliver)
            let current = state.outcome
            queue.async { [weak self] in
                guard self?.isListening(id) == true else { return }
                deliver(current)
            }
            return id
        }
    }

    /// A sequence of outcomes: the current one, then each new one, until the validator closes.
    func stream() -> AsyncStream<ValidationOutcome> {
        AsyncStream { continuation in
            let id: UInt64? = state.withLock { state in
                continuation.yield(state.outcome)
                guard !state.isClosed else { return nil }
                let id = state.nextID
                state.nextID += 1
                state.listeners[id] = .stream(continuation)
                return id
            }
            guard let id else {
                continuation.finish()
                return
            }
            continuation.onTermination = { [weak self] _ in self?.removeListener(id) }
        }
    }

    func removeListener(_ id: UInt64) {
        state.withLock { _ = $0.listeners.removeValue(forKey: id) }
    }

    private func isListening(_ id: UInt64) -> Bool { state.withLock { $0.listeners[id] != nil } }

    // MARK: - Closing

    /// Stops probing and listening; sequences end. The outcome stays as it was.
    func close() {
        let closed = state.withLock { state -> (Task<Void, Never>?, Consumer?, [Listener])? in
            guard !state.isClosed else { return nil }
            state.isClosed = true
            defer {
                state.cycle = nil
                state.observer = nil
                state.listeners = [:]
            }
            return (state.cycle, state.observer, Array(state.listeners.values))
        }
        guard let (cycle, observer, listeners) = closed else { return }
        cycle?.cancel()
        if let observer { reachability.removeConsumer(observer) }
        for case .stream(let continuation) in listeners { continuation.finish() }
        if let closing { Task { await closing() } }
    }
}
