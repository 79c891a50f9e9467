import FoundationEssentials
import NIOCore
import NetworkReachability
import NetworkReachabilityValidation
import Prometheus

/// The targets `reach serve` publishes: each one's last state, in the registry and for `/status`, and the event
/// streams that hear each change.
///
/// Confined to the server's one event loop: snapshots from the monitor's thread and outcomes from the validator's
/// queue hop onto it, so a stream's first states and the changes after them never cross or repeat, and nothing
/// here needs a lock.
final class ServedTargets: @unchecked Sendable {
    private struct Target {
        let text: String
        let gauges: TargetGauges
        /// With `--validate`, on the validated internet target: the rule pairing its snapshot with the outcome.
        var validation: ValidatedPair?
        var shown: (snapshot: ReachabilitySnapshot, outcome: ValidationOutcome?)?
    }

    let eventLoop: any EventLoop
    private var targets: [Target]
    private var streams: [ObjectIdentifier: (String) -> Void] = [:]
    private var unshown: Int
    private let ready: EventLoopPromise<Void>

    /// - Parameters:
    ///   - targets: each target's text, as the user typed it, and whether the validator's outcome goes with it.
    init(_ targets: [(text: String, validated: Bool)], registry: PrometheusCollectorRegistry, eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        self.targets = targets.map { text, validated in
            Target(
                text: text, gauges: TargetGauges(target: text, validated: validated, registry: registry),
                validation: validated ? ValidatedPair() : nil)
        }
        unshown = targets.count
        ready = eventLoop.makePromise()
    }

    /// Succeeds once every target has its first state, so `/status` and a stream's start always hold them all.
    var allShown: EventLoopFuture<Void> { ready.futureResult }

    /// Target `index`'s snapshot changed (from any thread).
    func receive(_ snapshot: ReachabilitySnapshot, forTarget index: Int) {
        eventLoop.execute {
            guard self.targets[index].validation != nil else { return self.show(snapshot, nil, forTarget: index) }
            if let shown = self.targets[index].validation?.receive(snapshot) {
                self.show(shown.snapshot, shown.outcome, forTarget: index)
            }
        }
    }

    /// The validator's outcome for target `index` changed (from any thread).
    func receive(_ outcome: ValidationOutcome, forTarget index: Int) {
        eventLoop.execute {
            if let shown = self.targets[index].validation?.receive(outcome) {
                self.show(shown.snapshot, shown.outcome, forTarget: index)
            }
        }
    }

    /// Every target's last state, as the JSON objects `reach status --json` prints, in the order given.
    func currentRecords() -> [String] {
        eventLoop.preconditionInEventLoop()
        return targets.compactMap { target in
            target.shown.map { SnapshotPrinter.jsonLine($0.snapshot, target: target.text, validation: $0.outcome) }
        }
    }

    /// Adds a stream under `id`: `send` hears each change's JSON from now on. Returns the current states, which the
    /// stream sends first.
    func subscribe(_ id: ObjectIdentifier, send: @escaping (String) -> Void) -> [String] {
        eventLoop.preconditionInEventLoop()
        streams[id] = send
        return currentRecords()
    }

    /// Removes the stream under `id`.
    func unsubscribe(_ id: ObjectIdentifier) {
        eventLoop.preconditionInEventLoop()
        streams[id] = nil
    }

    private func show(_ snapshot: ReachabilitySnapshot, _ outcome: ValidationOutcome?, forTarget index: Int) {
        if targets[index].shown == nil {
            unshown -= 1
            if unshown == 0 { ready.succeed() }
        }
        targets[index].shown = (snapshot, outcome)
        targets[index].gauges.show(snapshot, validation: outcome, changedAt: Date.now.timeIntervalSince1970)
        guard !streams.isEmpty else { return }
        let record = SnapshotPrinter.jsonLine(snapshot, target: targets[index].text, validation: outcome)
        // A copy: a stream dropped for reading too slowly leaves `streams` while this goes on.
        for send in streams.values { send(record) }
    }
}
