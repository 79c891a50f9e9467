public import Dispatch
public import Logging
import NetworkReachabilityPOSIX
@_exported import NetworkReachabilityCore

/// Checks that the internet really carries traffic, not only that a packet can leave: detects captive
/// portals (hotel and airport log-in pages) and dead uplinks, as Android's validated networks do.
///
/// While its target (the internet, unless you pass another) is reachable, it sends an HTTP `GET` to the
/// probe URL you chose, which must answer `204 No Content`. It probes again on every change of the
/// target's status or path, and every few seconds (doubling, up to the configured maximum) while the
/// answer is not `validated`; never while the target is not reachable. No endpoint is contacted unless you
/// make a validator: see ``ValidationConfiguration`` for the privacy trade-off.
///
/// ```swift
/// let validator = try ConnectivityValidator(
///     configuration: ValidationConfiguration(probeURL: "http://connectivitycheck.example.com/generate_204"))
/// for await outcome in validator.updates {
///     print(outcome)    // notChecked, then validated, captivePortal(loginURL), limited(reason)…
/// }
/// ```
public final class ConnectivityValidator: Sendable {
    private let runner: ValidationRunner
    /// The slot of the closure listener.
    private let listener = ListenerSlot()

    /// What each metric family the validator records through swift-metrics says, by name (as
    /// `NetworkReachability.metricDescriptions` does for the library's own).
    public static let metricDescriptions = [ValidationRunner.probesFamily.name: ValidationRunner.probesFamily.help]

    // MARK: - Initialization

    /// Starts validating with `prober`: a simulated network's in tests, or your own HTTP stack's.
    /// (`NetworkReachabilityValidation` adds the initializer that probes with AsyncHTTPClient.)
    ///
    /// - Parameters:
    ///   - reachability: what must be reachable before a probe is sent: `NetworkReachability()` for the internet.
    ///   - configuration: the probe URL, timeouts and retry delays.
    ///   - prober: what sends probes.
    ///   - logger: where each probe's outcome is logged (debug); nothing is logged unless you pass a logger.
    /// - Throws: the kernel subscription's error when it cannot be opened.
    public convenience init(
        reachability: NetworkReachability, configuration: ValidationConfiguration,
        prober: any ConnectivityProbing, logger: Logger = NetworkReachability.silentLogger
    ) throws(ReachabilityError) {
        try self.init(reachability: reachability, configuration: configuration, prober: prober, logger: logger, closing: nil)
    }

    /// Starts validating with `prober`, and calls `closing` once when the validator closes: a prober made for this
    /// validator alone is released there.
    public init(
        reachability: NetworkReachability, configuration: ValidationConfiguration, prober: any ConnectivityProbing,
        logger: Logger, closing: (@Sendable () async -> Void)?
    ) throws(ReachabilityError) {
        runner = ValidationRunner(
            reachability: reachability, configuration: configuration, prober: prober, logger: logger, closing: closing)
        try runner.start()
    }

    /// Releasing the validator closes it: see ``close()``.
    deinit {
        runner.close()
    }

    /// Where and how it probes.
    public var configuration: ValidationConfiguration { runner.configuration }

    // MARK: - The outcome

    /// The latest outcome: `notChecked` until the first probe answers, and whenever the target is not reachable.
    public var outcome: ValidationOutcome { runner.outcome }

    /// The outcomes: the current one at once, then each new one (never the same twice in a row), until the
    /// validator closes or the iterating task is cancelled.
    public var updates: AsyncStream<ValidationOutcome> { runner.stream() }

    /// Calls `listener` on `queue` with the current outcome, then with each new one. Replaces an earlier
    /// listener; no call arrives after ``stopListening()`` returns on the listener's queue.
    public func startListening(
        onQueue queue: DispatchQueue = .main, onUpdatePerforming listener: @escaping @Sendable (ValidationOutcome) -> Void
    ) {
        let id = runner.addListener(queue: queue, listener)
        if let replaced = self.listener.replace(with: id) { runner.removeListener(replaced) }
    }

    /// Stops the closure listener.
    public func stopListening() {
        if let id = listener.replace(with: nil) { runner.removeListener(id) }
    }

    /// Suspends until the network is validated and returns `validated`.
    ///
    /// - Parameter timeout: the longest wait; `nil` waits until the task is cancelled.
    /// - Throws: `ReachabilityError.timedOut` when the timeout passes first, `CancellationError` when the task
    ///   is cancelled, `ReachabilityError.invalidTimeout` for a negative timeout, and `CancellationError` when
    ///   the validator closes first.
    public func waitUntilValidated(timeout: Duration? = nil) async throws -> ValidationOutcome {
        if let timeout, timeout < .zero { throw ReachabilityError.invalidTimeout(timeout) }
        let updates = updates
        return try await withThrowingTaskGroup(of: ValidationOutcome.self) { group in
            group.addTask {
                for await outcome in updates where outcome.isValidated { return outcome }
                throw CancellationError()  // closed, or the wait was cancelled
            }
            if let timeout {
                let clock = runner.reachability.clock
                group.addTask {
                    try await clock.sleep(for: timeout)
                    throw ReachabilityError.timedOut(timeout)
                }
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }

    /// Stops probing and listening for good: sequences end, and the outcome stays as it last was.
    public func close() {
        runner.close()
    }
}

/// The id of the one closure listener, if any.
private final class ListenerSlot: Sendable {
    private let id = Locked<UInt64?>(nil)

    /// Stores `new` and returns the id it replaces.
    func replace(with new: UInt64?) -> UInt64? {
        id.withLock { current in
            defer { current = new }
            return current
        }
    }
}
