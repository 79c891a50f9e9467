import FoundationEssentials
import NIOConcurrencyHelpers
package import NIOCore
import NetworkReachabilityCore
import NetworkReachabilityValidationCore
package import Prometheus
import Synchronization

/// The targets `reach serve` publishes: each one's last state, in the registry and for `/status`, and the event
/// streams that hear each change.
///
/// Confined to the server's one event loop, but for its inbox: snapshots from the monitor's thread and outcomes from
/// the validator's queue replace the target's state not yet shown there (latest wins), and the loop shows every
/// changed target once per turn, in the order they first changed, unless it ended as it was shown; a turn goes in
/// steps of ``targetsPerStep`` targets, with the loop's other work between them. A turn begins at once after a calm,
/// and otherwise at most every ``turnInterval`` and no sooner after the last one's end than that one's steps took: however
/// fast the routes churn and however slow the machine, turns take at most half the loop's time, nothing queues up
/// behind them, a scrape waits at most one step, and the last state of a burst is always shown.
package final class ServedTargets: Sendable {
    private struct Target {
        let text: String
        let gauges: TargetGauges
        /// With `--validate`, on the validated internet target: the rule pairing its snapshot with the outcome.
        var validation: ValidatedPair?
        var shown: (snapshot: ReachabilitySnapshot, outcome: ValidationOutcome?)?
        /// When `shown` was shown (Unix seconds): its series' last change.
        var shownAt = 0.0
    }

    /// What arrived from other threads and is not yet shown: the newest of each target's, and the order of changes.
    private struct Inbox {
        var snapshots: [Int: ReachabilitySnapshot] = [:]
        var outcomes: [Int: ValidationOutcome] = [:]
        var order: [Int] = []
        /// Whether a turn of the loop is already asked to show them.
        var isScheduled = false

        /// Records `index` as changed; returns whether the loop must be asked for a turn.
        mutating func note(_ index: Int) -> Bool {
            if snapshots[index] == nil && outcomes[index] == nil { order.append(index) }
            defer { isScheduled = true }
            return !isScheduled
        }
    }

    /// What the event loop alone touches, bound to it: every access checks that it is made there.
    private struct LoopState {
        var targets: [Target]
        var streams: [ObjectIdentifier: (_ target: Int, _ record: String) -> Void] = [:]
        /// How many times a target's state was shown.
        var changesShown = 0
        var unshown: Int
        /// When the next turn may begin, on the loop's clock; `nil` before the first.
        var nextTurn: NIODeadline?
        /// The turn in progress: what it took from the inbox, the targets still to show, when it began and what its
        /// steps have taken so far.
        var turn: (received: Inbox, left: ArraySlice<Int>, began: NIODeadline, cost: TimeAmount)?
        /// Whether changes came while a turn was in progress, so another must follow it.
        var turnWanted = false
    }

    let eventLoop: any EventLoop
    private let state: NIOLoopBoundBox<LoopState>
    private let ready: EventLoopPromise<Void>
    /// Whether every target has had its first state (read by `deinit`, which may run on any thread).
    private let isAllShown = Atomic(false)
    private let inbox = NIOLockedValueBox(Inbox())
    /// Target `index`'s link quality now, from the running reader: a change of class is delivered as a change, and the
    /// figures between changes are taken from here whenever `/status`, a stream's start or a scrape shows them.
    private let quality: (@Sendable (_ index: Int, _ interface: NetworkInterface) -> LinkQuality?)?

    /// How many times a target's state was shown: a rendering of the series made at one count is current until the
    /// next. On the event loop.
    var changesShown: Int { state.value.changesShown }

    /// The targets one step of a turn shows, so that a scrape waits at most that long behind a turn.
    static let targetsPerStep = 100

    /// The events one step hands to streams: with many streams a step shows fewer targets, so a step's cost is
    /// bounded by targets and streams together. 300 streams on 50 targets made one step of 15,000 events that held a
    /// scrape 1.5 s (a debug build, `ServeFailsClosedInNamespaceTests`).
    static let eventsPerStep = 1_000

    /// The least time between the beginnings of two turns, and so the most a change waits to be shown. With 1,000
    /// targets and the default route flapping 25 times a second, a scrape takes at most 30 ms at p99
    /// (`Benchmarks/results/2026-11-26-serve-churn.md`, `scripts/bench-serve --churn`).
    static let turnInterval = TimeAmount.milliseconds(100)

    /// - Parameters:
    ///   - targets: each target's text, as the user typed it, and whether the validator's outcome goes with it.
    ///   - flagSeries: the flags served as `reach_target_flags` series.
    package init(
        _ targets: [(text: String, validated: Bool)], registry: PrometheusCollectorRegistry, eventLoop: any EventLoop,
        flagSeries: ReachabilityFlags = ReachabilityExporter.defaultFlagSeries,
        quality: (@Sendable (_ index: Int, _ interface: NetworkInterface) -> LinkQuality?)? = nil
    ) {
        self.eventLoop = eventLoop
        self.quality = quality
        let shown = targets.map { text, validated in
            Target(
                text: text,
                gauges: TargetGauges(target: text, validated: validated, flagSeries: flagSeries, registry: registry),
                validation: validated ? ValidatedPair() : nil)
        }
        state = .makeBoxSendingValue(LoopState(targets: shown, unshown: targets.count), eventLoop: eventLoop)
        ready = eventLoop.makePromise()
        if targets.isEmpty { isAllShown.store(true, ordering: .relaxed) }
    }

    /// Released before every target was shown: whoever waits for ``allShown`` hears so.
    deinit {
        if !isAllShown.load(ordering: .acquiring) { ready.fail(ReleasedBeforeShown()) }
    }

    /// ``allShown``'s failure when the targets were released before each had its first state.
    package struct ReleasedBeforeShown: Error {}

    /// Succeeds once every target has its first state, so `/status` and a stream's start always hold them all.
    package var allShown: EventLoopFuture<Void> { ready.futureResult }

    /// Target `index`'s snapshot changed (from any thread): it replaces one not yet shown.
    package func receive(_ snapshot: ReachabilitySnapshot, forTarget index: Int) {
        let schedule = inbox.withLockedValue { inbox in
            defer { inbox.snapshots[index] = snapshot }
            return inbox.note(index)
        }
        if schedule { eventLoop.execute { self.scheduleTurn() } }
    }

    /// The validator's outcome for target `index` changed (from any thread): it replaces one not yet shown.
    package func receive(_ outcome: ValidationOutcome, forTarget index: Int) {
        let schedule = inbox.withLockedValue { inbox in
            defer { inbox.outcomes[index] = outcome }
            return inbox.note(index)
        }
        if schedule { eventLoop.execute { self.scheduleTurn() } }
    }

    /// Takes a turn now, or once the next may begin; one in progress is finished first.
    private func scheduleTurn() {
        guard state.value.turn == nil else { return state.value.turnWanted = true }
        guard let due = state.value.nextTurn, due > eventLoop.now else { return beginTurn() }
        eventLoop.assumeIsolated().scheduleTask(deadline: due) { self.beginTurn() }
    }

    /// Takes what the inbox holds, and shows it in steps.
    private func beginTurn() {
        guard state.value.turn == nil else { return state.value.turnWanted = true }
        let received = inbox.withLockedValue { inbox in
            defer { inbox = Inbox() }
            return inbox
        }
        state.value.turn = (received, received.order[...], eventLoop.now, .zero)
        step()
    }

    /// Shows the next targets of the turn, at most ``targetsPerStep`` and ``eventsPerStep`` events: what the loop has
    /// to do (scrapes, streams) goes between steps. The last step ends the turn, sets when the next may begin, and
    /// asks for it if changes came meanwhile.
    private func step() {
        guard var current = state.value.turn else { return }
        let started = eventLoop.now
        let count = min(Self.targetsPerStep, max(1, Self.eventsPerStep / max(1, state.value.streams.count)))
        for index in current.left.prefix(count) { showLatest(ofTarget: index, in: current.received) }
        current.left = current.left.dropFirst(count)
        let ended = eventLoop.now
        current.cost = current.cost + (ended - started)
        guard current.left.isEmpty else {
            state.value.turn = current
            return eventLoop.execute { self.step() }
        }
        state.value.nextTurn = max(current.began + Self.turnInterval, ended + current.cost)
        state.value.turn = nil
        if state.value.turnWanted {
            state.value.turnWanted = false
            scheduleTurn()
        }
    }

    /// Shows target `index`'s newest state of `received`, unless it ended where it was shown (a route gone and back
    /// within a turn is no change).
    private func showLatest(ofTarget index: Int, in received: Inbox) {
        let latest = state.withValue { state -> (snapshot: ReachabilitySnapshot, outcome: ValidationOutcome?)? in
            var latest: (snapshot: ReachabilitySnapshot, outcome: ValidationOutcome?)?
            if let snapshot = received.snapshots[index] {
                if state.targets[index].validation == nil {
                    latest = (snapshot, nil)
                } else if let paired = state.targets[index].validation?.receive(snapshot) {
                    latest = (paired.snapshot, paired.outcome)
                }
            }
            if let outcome = received.outcomes[index], let paired = state.targets[index].validation?.receive(outcome) {
                latest = (paired.snapshot, paired.outcome)
            }
            let shown = state.targets[index].shown
            guard let latest, shown.map({ $0.snapshot != latest.snapshot || $0.outcome != latest.outcome }) ?? true else {
                return nil
            }
            return latest
        }
        if let latest { show(latest.snapshot, latest.outcome, forTarget: index) }
    }

    /// Every target's last state, as the JSON objects `reach status --json` prints, in the order given, its link
    /// quality's figures as they are now.
    func currentRecords() -> [String] {
        refreshQuality()
        return state.value.targets.compactMap { target in
            target.shown.map { StatusRecord.line($0.snapshot, target: target.text, validation: $0.outcome) }
        }
    }

    /// Every target's last state as a JSON array: `/status`'s answer.
    func statusArray() -> String {
        "[" + currentRecords().joined(separator: ",") + "]"
    }

    /// Adds a stream under `id`: `send` hears each change's JSON from now on, with its target's index. Returns the
    /// current states, which the stream sends first.
    func subscribe(_ id: ObjectIdentifier, send: @escaping (_ target: Int, _ record: String) -> Void) -> [String] {
        state.value.streams[id] = send
        return currentRecords()
    }

    /// Removes the stream under `id`.
    func unsubscribe(_ id: ObjectIdentifier) {
        state.value.streams[id] = nil
    }

    /// Gives each shown state that carries a link quality the reader's figures of now; where the series' figures
    /// moved, sets them (which counts as a change for the rendering of `/metrics`). On the event loop, before
    /// `/status`, a stream's start and a scrape show the states.
    func refreshQuality() {
        guard let quality else { return }
        state.withValue { state in
            for index in state.targets.indices {
                guard let shown = state.targets[index].shown, let before = shown.snapshot.path.quality,
                    let interface = shown.snapshot.path.interface, let now = quality(index, interface), now != before
                else { continue }
                var refreshed = shown.snapshot
                refreshed.path.quality = now
                state.targets[index].shown = (refreshed, shown.outcome)
                if now.rtt != before.rtt || now.downlinkKbps != before.downlinkKbps || now.effectiveType != before.effectiveType {
                    state.targets[index].gauges.show(refreshed, validation: shown.outcome, changedAt: state.targets[index].shownAt)
                    state.changesShown &+= 1
                }
            }
        }
    }

    private func show(_ snapshot: ReachabilitySnapshot, _ outcome: ValidationOutcome?, forTarget index: Int) {
        // The streams are told, and whoever waits for every target hears, once the state is left: either may call
        // back into it.
        let (isLastShown, record, streams) = state.withValue { state in
            state.changesShown &+= 1
            let isFirst = state.targets[index].shown == nil
            if isFirst { state.unshown -= 1 }
            state.targets[index].shown = (snapshot, outcome)
            state.targets[index].shownAt = Date.now.timeIntervalSince1970
            state.targets[index].gauges.show(snapshot, validation: outcome, changedAt: state.targets[index].shownAt)
            let record =
                state.streams.isEmpty ? "" : StatusRecord.line(snapshot, target: state.targets[index].text, validation: outcome)
            return (isFirst && state.unshown == 0, record, Array(state.streams.values))
        }
        if isLastShown {
            isAllShown.store(true, ordering: .releasing)
            ready.succeed()
        }
        for send in streams { send(index, record) }
    }
}
