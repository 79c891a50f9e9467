package import CoreMetrics
import Dispatch
package import Logging
import NetworkReachabilityPOSIX

/// The one subscription to a backend's changes that serves every consumer listening through that backend.
///
/// Consumers are kept by target, and each distinct target is evaluated once per pass however many listen to it.
/// The subscription opens with the first consumer and closes, with every descriptor, when the last one leaves. Its
/// loop runs on a thread of its own: it waits for a batch of changes, evaluates the targets the batch can touch
/// (``TargetDependency/isTouched(by:of:)``) and those due for a reason of their own, and hands each consumer the
/// snapshots its rule calls new.
package final class ReachabilityMonitor: Sendable {
    /// One distinct target and the consumers that listen to it. Its variables are read and written only under the
    /// monitor's lock (a pass holds entries outside it, and takes the lock again to touch them): that lock, not the
    /// compiler, makes it safe to share, which is what `@unchecked` says here and nowhere wider.
    private final class Entry: @unchecked Sendable {
        /// Evaluated in the next pass, whatever the changes: a new consumer, a host's new resolution.
        var isDue = true
        /// Its interface's details changed: the next pass gives `last` the new ones, with no evaluation.
        var detailsDue = false
        /// What `last` rests on.
        var dependency: TargetDependency?
        let target: ReachabilityTarget
        var consumers: [Consumer] = []
        /// The latest answer, once evaluated.
        var last: ReachabilitySnapshot?

        init(_ target: ReachabilityTarget) { self.target = target }

        /// Keeps `snapshots[position]` as the latest answer and adds a delivery for each consumer that hears it.
        func record(
            _ snapshots: [ReachabilitySnapshot], at position: Int, _ dependency: TargetDependency,
            into deliveries: inout [Delivery]
        ) {
            let previous = last
            last = snapshots[position]
            self.dependency = dependency
            for consumer in consumers where consumer.hears(snapshots[position], after: previous) {
                deliveries.append(Delivery(consumer: consumer, position: position))
            }
        }
    }

    /// A subscription and the thread that runs its loop.
    private final class Loop: Sendable {
        /// Replaced only by the loop's own thread, when a failed subscription is reopened.
        let current: Locked<any RoutingSubscription>
        let stopRequested = Locked(false)
        let thread = Locked(ThreadState.starting)
        init(_ subscription: any RoutingSubscription) { current = Locked(subscription) }
        var subscription: any RoutingSubscription { current.withLock { $0 } }
    }

    /// The loop's thread as its starter and its end see it: whichever comes second joins or detaches it.
    private enum ThreadState {
        /// Not started yet, or its handle not stored yet.
        case starting
        case running(DedicatedThread)
        /// Ended, or asked to, before its handle was stored.
        case ended
    }

    private struct State {
        var entries: [ReachabilityTarget: Entry] = [:]
        var loop: Loop?
        /// What closed subscriptions counted, and the evaluations of every pass.
        var counted = MonitorStatistics()
        /// The loggers of the consumers whose logger logs anything at all (a silent one's level is `critical`).
        var loggers: [ObjectIdentifier: Logger] = [:]
        /// Where paths get their interface's ``LinkDetails``, once one is attached.
        var detailsSource: (any LinkDetailsSource)?
        /// Consumers that measure quality: the backend's quality source runs while there is one.
        var qualityConsumers = 0

        /// Where paths' networks get their ``NetworkSettings``, once one is attached.
        var settingsSource: (any NetworkSettingsSource)?

        /// What a pass gives every path beside its evaluation: details, the network's settings, and quality while it
        /// is measured.
        var decoration: Decoration {
            Decoration(
                details: detailsSource, settings: settingsSource, quality: qualityConsumers > 0 ? qualitySource : nil)
        }
        var qualitySource: (any LinkQualitySource)?
    }

    /// The sources a snapshot's path takes its interface's details, its network's settings and its quality from.
    private struct Decoration {
        let details: (any LinkDetailsSource)?
        let settings: (any NetworkSettingsSource)?
        let quality: (any LinkQualitySource)?
        /// For a read while no consumer measures: one read of the open flows, not the (absent) estimate.
        var readsOnce = false

        var isEmpty: Bool { details == nil && settings == nil && quality == nil }

        /// `snapshot` with its interface's details, its network's settings and its quality: the one place a path
        /// gets them.
        func apply(_ snapshot: ReachabilitySnapshot) -> ReachabilitySnapshot {
            var decorated = details?.detailed(snapshot) ?? snapshot
            if let settings {
                if let network = decorated.path.network {
                    let applied = network.applying(settings.settings(for: network.id))
                    if applied != network { decorated.path.network = applied }
                }
                var underlying = decorated.path.underlying
                for position in underlying.indices {
                    guard let network = underlying[position].network else { continue }
                    underlying[position].network = network.applying(settings.settings(for: network.id))
                }
                if underlying != decorated.path.underlying { decorated.path.underlying = underlying }
            }
            if let quality, let interface = decorated.path.interface {
                let measured = readsOnce ? quality.measureOnce(interface) : quality.quality(of: interface)
                if measured != decorated.path.quality { decorated.path.quality = measured }
            }
            return decorated
        }
    }

    /// The backend the monitor listens to, for reads too.
    package let backend: any RoutingBackend
    /// The clock every timeout and delay of what listens through this monitor is measured on: waits, the work
    /// queue's retries, the validator's; the continuous clock, or a test's (the simulated network's).
    package let clock: any Clock<Duration>
    /// What it records through swift-metrics.
    private let metrics: MonitorMetrics
    // Guarded by its lock; never held while calling a consumer or joining the thread.
    private let state = Locked(State())
    /// Whether the backend's quality source runs; held while it starts or stops (see `switchQualityMeasurement`).
    private let qualitySwitch = Locked(false)

    /// A monitor of `backend`; it subscribes when the first consumer is added.
    ///
    /// - Parameters:
    ///   - metricsFactory: where its metrics go; the bootstrapped backend (none: nothing recorded) unless a test
    ///     gives one.
    ///   - clock: what timeouts and delays are measured on.
    package init(
        backend: any RoutingBackend, metricsFactory: (any MetricsFactory)? = nil,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.backend = backend
        self.clock = clock
        metrics = MonitorMetrics(factory: metricsFactory ?? MetricsSystem.factory)
        state.withLock { $0.qualitySource = backend.linkQuality }
        backend.hosts.onChange { [weak self] name in self?.reevaluate(host: name) }
    }

    // MARK: - Consumers

    /// Starts delivering to `consumer`: its target's first snapshot as soon as the target is evaluated, then each
    /// one its rule calls new. Opens the subscription when it is the first.
    ///
    /// - Parameters:
    ///   - resolutionTimeout: for a host target, how long one resolution may take.
    ///   - logger: where the monitor's own events go while the consumer listens.
    /// - Throws: when the subscription cannot be opened.
    package func add(_ consumer: Consumer, resolutionTimeout: Duration, logger: Logger) throws(ReachabilityError) {
        // Watched before the consumer is visible, so no evaluation meets the name unknown to the directory.
        if let name = consumer.target.hostName { backend.hosts.watch(name, timeout: resolutionTimeout) }
        let opened: (Loop, isNew: Bool)
        do {
            opened = try state.withLock { (state: inout State) throws(ReachabilityError) -> (Loop, Bool) in
                let existing = state.loop
                let loop: Loop
                if let existing { loop = existing } else { loop = Loop(try backend.subscribe()) }
                state.loop = loop
                let entry = state.entries[consumer.target] ?? Entry(consumer.target)
                state.entries[consumer.target] = entry
                entry.consumers.append(consumer)
                entry.isDue = true
                if logger.logLevel < .critical { state.loggers[ObjectIdentifier(consumer)] = logger }
                if consumer.measuresQuality { state.qualityConsumers += 1 }
                return (loop, existing == nil)
            }
        } catch {
            if let name = consumer.target.hostName { backend.hosts.unwatch(name) }
            throw error
        }
        let (loop, isNew) = opened
        if consumer.measuresQuality { switchQualityMeasurement() }
        if isNew {
            do {
                let started = try DedicatedThread { [self] in run(loop) }
                let endedAlready = loop.thread.withLock { thread in
                    guard case .starting = thread else { return true }
                    thread = .running(started)
                    return false
                }
                if endedAlready { started.detach() }
            } catch {
                // Never heard anything: it leaves without being told.
                stop(detach(consumer))
                throw ReachabilityError(error)
            }
        }
        loop.subscription.wake()
    }

    /// Stops delivering to `consumer` and calls its `finish`; the last one out closes the subscription and joins its
    /// thread. Safe from any thread, a delivery's included; the consumer hears nothing more once this returns.
    package func remove(_ consumer: Consumer) {
        guard consumer.end(because: nil) else { return }
        stop(detach(consumer))
    }

    /// Takes `consumer` out of the registry; returns the loop when it was the last one, for ``stop(_:)``.
    private func detach(_ consumer: Consumer) -> Loop? {
        let (finished, wasMeasuring): (Loop?, Bool) = state.withLock { state in
            state.loggers[ObjectIdentifier(consumer)] = nil
            guard let entry = state.entries[consumer.target], entry.consumers.contains(where: { $0 === consumer }) else {
                return (nil, false)
            }
            entry.consumers.removeAll { $0 === consumer }
            if entry.consumers.isEmpty { state.entries[consumer.target] = nil }
            if consumer.measuresQuality { state.qualityConsumers -= 1 }
            guard state.entries.isEmpty, let loop = state.loop else { return (nil, consumer.measuresQuality) }
            state.loop = nil
            state.counted = state.counted.adding(loop.subscription.statistics)
            return (loop, consumer.measuresQuality)
        }
        if wasMeasuring { switchQualityMeasurement() }
        if let name = consumer.target.hostName { backend.hosts.unwatch(name) }
        return finished
    }

    /// Stops `loop`, if there is one: its thread ends and is joined, and its subscription closes.
    private func stop(_ loop: Loop?) {
        guard let finished = loop else { return }
        finished.stopRequested.withLock { $0 = true }
        finished.subscription.wake()
        Self.takeThread(of: finished)?.join()
    }

    /// The loop's thread, for its end to join. `nil` while its starter has not stored it yet: the loop's first
    /// delivery can come first, and a consumer that stops inside it can end the loop. The starter then detaches it.
    private static func takeThread(of loop: Loop) -> DedicatedThread? {
        loop.thread.withLock { thread in
            guard case .running(let running) = thread else {
                thread = .ended
                return nil
            }
            return running
        }
    }

    /// Evaluates the targets that resolve `name` (the host, and the host restricted to interface types) again soon,
    /// if anyone listens to them: the name's resolution changed.
    func reevaluate(host name: HostName) {
        markDue { target, _ in target.hostName == name }
    }

    /// Marks the listened targets `isAffected` picks due for the next pass, and wakes the loop if there are any.
    private func markDue(where isAffected: (ReachabilityTarget, Entry) -> Bool) {
        let loop: Loop? = state.withLock { state in
            var found = false
            for (target, entry) in state.entries where isAffected(target, entry) {
                entry.isDue = true
                found = true
            }
            return found ? state.loop : nil
        }
        loop?.subscription.wake()
    }

    // MARK: - Link details

    /// Gives every path this monitor reports, read or delivered, the details `source` knows of its interface: the
    /// listened targets' last paths now, and again whenever the source says an interface's details changed.
    /// Replaces an earlier source.
    package func attach(_ source: any LinkDetailsSource) {
        state.withLock { $0.detailsSource = source }
        source.onChange { [weak self] interfaces in self?.detailsChanged(interfaces: interfaces) }
        detailsChanged(interfaces: nil)
    }

    /// The source says the details of `interfaces` (every interface for `nil`) changed. Where what it says links are
    /// changed too, every target is evaluated again, since a link's type sets flags and decides restrictions; otherwise
    /// the targets on those interfaces only take their new details.
    private func detailsChanged(interfaces: Set<String>?) {
        if let source = state.withLock({ $0.detailsSource }), backend.serviceLinkTypes.update(source.linkTypes()) {
            markDue { _, _ in true }
        }
        markDetailsDue(interfaces: interfaces)
    }

    // MARK: - Network settings

    /// Gives every path's network that this monitor reports, read or delivered, the settings `source` holds for it:
    /// the listened targets' last paths now, and again whenever the source says its settings changed. Replaces an
    /// earlier source.
    package func attach(_ source: any NetworkSettingsSource) {
        state.withLock { $0.settingsSource = source }
        source.onChange { [weak self] in self?.markDetailsDue(interfaces: nil) }
        markDetailsDue(interfaces: nil)
    }

    /// Every interface (`networkctl`'s list), each with the details the attached source knows of it.
    package func interfaces() throws(ReachabilityError) -> [InterfaceStatus] {
        let source = state.withLock { $0.detailsSource }
        return try backend.interfaces().map { status in
            var detailed = status
            detailed.details = source?.details(of: status.interface)
            return detailed
        }
    }

    /// `snapshot` with its interface's details, when a source is attached, and, when `measuringQuality`, its quality
    /// (one read of the flows open now, unless a consumer measures it already).
    package func detailed(_ snapshot: ReachabilitySnapshot, measuringQuality: Bool = false) -> ReachabilitySnapshot {
        let decoration = state.withLock { state in
            Decoration(
                details: state.detailsSource, settings: state.settingsSource,
                quality: measuringQuality ? state.qualitySource : nil, readsOnce: state.qualityConsumers == 0)
        }
        return decoration.apply(snapshot)
    }

    // MARK: - Link quality

    /// Starts the backend's quality source while a consumer measures quality, and stops it when none does. Each
    /// caller changed the count first; whichever takes the switch last sees the final count, so a start and a stop
    /// racing on two threads end as the count says.
    private func switchQualityMeasurement() {
        guard let source = backend.linkQuality else { return }
        qualitySwitch.withLock { isMeasuring in
            let wanted = state.withLock { $0.qualityConsumers > 0 }
            guard wanted != isMeasuring else { return }
            isMeasuring = wanted
            if wanted {
                source.start { [weak self] interfaces in self?.markDetailsDue(interfaces: interfaces) }
            } else {
                // Joins the reader's thread, which never takes this switch.
                source.stop()
            }
        }
    }

    /// The quality of `interface` as the running reader estimates it now, with no read of the kernel; `nil` while no
    /// consumer measures quality.
    package func measuredQuality(of interface: NetworkInterface) -> LinkQuality? {
        state.withLock { $0.qualityConsumers > 0 ? $0.qualitySource : nil }?.quality(of: interface)
    }

    /// What the backend's quality source has counted; empty without one.
    package var qualityStatistics: QualityStatistics { backend.linkQuality?.statistics ?? QualityStatistics() }

    /// Gives the targets whose last path used one of `interfaces` (every target for `nil`) their interface's new
    /// details in the next pass: the facts the monitor holds are enough, so no target is evaluated again for it.
    private func markDetailsDue(interfaces: Set<String>?) {
        let loop: Loop? = state.withLock { state in
            var found = false
            for entry in state.entries.values {
                guard let path = entry.last?.path, let interface = path.interface,
                    interfaces.map({ names in
                        names.contains(interface.name) || path.underlying.contains { names.contains($0.interface.name) }
                    }) ?? true
                else { continue }
                entry.detailsDue = true
                found = true
            }
            return found ? state.loop : nil
        }
        loop?.subscription.wake()
    }

    /// The factory of the monitor's metrics, for what is built on it to record beside them.
    package var metricsFactory: any MetricsFactory { metrics.factory }

    /// What the monitor and its subscriptions have counted, the open one included.
    package var statistics: MonitorStatistics {
        state.withLock { state in state.loop.map { state.counted.adding($0.subscription.statistics) } ?? state.counted }
    }

    /// The descriptors the open subscription holds (none when closed).
    package var openDescriptors: [Int32] { state.withLock { $0.loop?.subscription.descriptors ?? [] } }

    /// Whether a subscription is open now.
    package var isSubscribed: Bool { state.withLock { $0.loop != nil } }

    // MARK: - The loop

    private func run(_ loop: Loop) {
        var change = RoutingChange.woken
        var reopened = false
        var finalError: ReachabilityError?
        while !loop.stopRequested.withLock({ $0 }) {
            switch change {
            case .failed(let error):
                // Reopen once and evaluate everything: a lost subscription must not leave stale answers. A deleted
                // namespace cannot come back, so there is nothing to reopen.
                let isFinal = if case .networkNamespaceDeleted = error { true } else { false }
                let retry = !reopened && !isFinal
                log(.error, "kernel subscription failed: \(error)\(retry ? "; reopening it" : "; giving up")")
                guard retry, let fresh = try? backend.subscribe() else {
                    finalError = error
                    break
                }
                reopened = true
                let failed = loop.current.withLock { current in
                    defer { current = fresh }
                    return current
                }
                failed.close()
                change = .changed(.everything)
                continue
            case .changed(let changes):
                let start = ContinuousClock.now
                backend.hosts.refreshWatched()
                pass(after: changes, through: loop.subscription)
                metrics.changeToDelivery.recordNanoseconds((ContinuousClock.now - start).saturatingNanoseconds)
            case .resolverConfigurationChanged:
                backend.hosts.refreshWatched()
                markDue { target, _ in target.isInternet }  // its path says whether a name server exists
                pass(after: NetworkChanges(), through: loop.subscription)
            case .woken:
                // Nothing of the network changed: only the targets marked due (new consumers, hosts, details).
                pass(after: nil, through: loop.subscription)
            }
            if finalError != nil { break }
            let before = loop.subscription.statistics
            change = loop.subscription.waitForChanges()
            report(change, counted: loop.subscription.statistics, since: before)
        }
        loop.subscription.close()
        if let finalError { abandon(loop, because: finalError) }
    }

    /// After an unrecoverable failure: every consumer ends and is told why, so sequences end instead of waiting
    /// forever, and the next consumer opens a new subscription.
    private func abandon(_ loop: Loop, because error: ReachabilityError) {
        let dropped: [Consumer] = state.withLock { state in
            guard state.loop === loop else { return [] }  // the last consumer left meanwhile
            state.loop = nil
            state.counted = state.counted.adding(loop.subscription.statistics)
            defer {
                state.entries.removeAll()
                state.loggers.removeAll()
                state.qualityConsumers = 0
            }
            return state.entries.values.flatMap(\.consumers)
        }
        switchQualityMeasurement()
        // On its own thread: detached, as nobody will join it now.
        Self.takeThread(of: loop)?.join()
        for consumer in dropped {
            if let name = consumer.target.hostName { backend.hosts.unwatch(name) }
            consumer.end(because: error)
        }
    }

    /// Evaluates the targets `batch` can have touched and those due for a reason of their own (only those when
    /// nothing of the network changed: `nil`), each distinct target once, then hands each consumer what its rule
    /// calls new; then gives the targets whose interface's details changed their new details. Targets go through one
    /// ``RoutingPass`` in parts of ``partSize``, each evaluated, recorded and delivered before the next.
    private func pass(after batch: NetworkChanges?, through subscription: any RoutingSubscription) {
        let changes = batch ?? NetworkChanges()
        // With whether each is due for a reason of its own: then nothing of its last answer may be reused.
        let due: [(entry: Entry, isMarked: Bool)] = state.withLock { state in
            var due: [(entry: Entry, isMarked: Bool)] = []
            for entry in state.entries.values {
                if entry.isDue {
                    due.append((entry, true))
                    entry.isDue = false
                } else if batch != nil, let dependency = entry.dependency, dependency.isTouched(by: changes, of: entry.target) {
                    due.append((entry, false))
                }
            }
            state.counted.targetEvaluations += due.count
            return due
        }
        if !due.isEmpty {
            metrics.evaluations.increment(by: due.count)
            let routingPass = subscription.beginPass(after: changes)
            for start in stride(from: 0, to: due.count, by: Self.partSize) {
                evaluate(due[start..<min(start + Self.partSize, due.count)], in: routingPass)
            }
        }
        redetail()
        // A host's pending state has now been heard: only then may its first resolution start.
        for (entry, _) in due { if let name = entry.target.hostName { backend.hosts.beginResolving(name) } }
    }

    /// Gives each target whose interface's details changed, and that this pass did not evaluate, its last answer
    /// with the new details, and hands consumers what their rule calls new: a radio change costs no lookup.
    private func redetail() {
        // The sources are asked outside the monitor's lock, which is never held while calling out.
        let (decoration, changed): (Decoration, [(Entry, ReachabilitySnapshot)]) = state.withLock { state in
            var changed: [(Entry, ReachabilitySnapshot)] = []
            for entry in state.entries.values where entry.detailsDue {
                entry.detailsDue = false
                if let last = entry.last, !entry.consumers.isEmpty { changed.append((entry, last)) }
            }
            return (state.decoration, changed)
        }
        guard !decoration.isEmpty, !changed.isEmpty else { return }
        let detailed = changed.map { decoration.apply($0.1) }
        let (deliveries, snapshots): ([Delivery], [ReachabilitySnapshot]) = state.withLock { _ in
            var deliveries: [Delivery] = []
            var snapshots: [ReachabilitySnapshot] = []
            for ((entry, last), snapshot) in zip(changed, detailed) {
                // Only the monitor's thread records answers, so `last` is still the entry's own.
                guard snapshot != last, let dependency = entry.dependency, !entry.consumers.isEmpty else { continue }
                snapshots.append(snapshot)
                entry.record(snapshots, at: snapshots.count - 1, dependency, into: &deliveries)
            }
            return (deliveries, snapshots)
        }
        if !deliveries.isEmpty { metrics.deliveries.increment(by: deliveries.count) }
        deliver(deliveries, of: snapshots)
    }

    /// Targets per part of a pass. While the monitor's thread evaluates a part, the queues' threads deliver the one
    /// before: 10,000 listening targets hear a default route's removal in about 8 ms in parts of this size, 15 ms in
    /// one (`Benchmarks/`).
    static let partSize = 512

    /// One part of a pass: its targets evaluated, their answers recorded, and what consumers hear delivered.
    private func evaluate(_ part: ArraySlice<(entry: Entry, isMarked: Bool)>, in routingPass: any RoutingPass) {
        let targets = state.withLock { _ in
            part.map { DueTarget($0.entry.target, previous: $0.isMarked ? nil : $0.entry.dependency) }
        }
        let evaluations = routingPass.evaluate(targets)
        let decoration = state.withLock { $0.decoration }
        var snapshots: [ReachabilitySnapshot] = []
        snapshots.reserveCapacity(evaluations.count)
        for (target, evaluation) in zip(targets, evaluations) {
            switch evaluation.result {
            case .success(let snapshot): snapshots.append(decoration.isEmpty ? snapshot : decoration.apply(snapshot))
            case .failure(let error):
                log(.warning, "evaluating \(target.target) failed: \(error)")
                snapshots.append(.unanswered(target.target))
            }
        }
        let deliveries: [Delivery] = state.withLock { state in
            var deliveries: [Delivery] = []
            for (position, (entry, _)) in zip(snapshots.indices, part) {
                // An entry whose last consumer left during the pass is gone; one made anew since is due of its own.
                guard !entry.consumers.isEmpty else { continue }
                entry.record(snapshots, at: position, evaluations[position].dependency, into: &deliveries)
            }
            return deliveries
        }
        if !deliveries.isEmpty { metrics.deliveries.increment(by: deliveries.count) }
        deliver(deliveries, of: snapshots)
    }

    /// A snapshot for one consumer: the one at `position` in its part's list.
    private struct Delivery {
        let consumer: Consumer
        let position: Int
    }

    /// Calls the consumers without a queue now, on this thread, and sends each queue its deliveries as one block.
    ///
    /// A delivery names its snapshot by position in the part's list, which each block holds once: the path that the
    /// targets behind one route share is then not retained per delivery on this thread while the queue's thread
    /// releases it, the two fighting over its count (`Benchmarks/`, 10,000 listening targets).
    private func deliver(_ deliveries: [Delivery], of snapshots: [ReachabilitySnapshot]) {
        var queued: [(queue: DispatchQueue, deliveries: [Delivery])] = []  // most passes see one queue
        for delivery in deliveries {
            guard let queue = delivery.consumer.queue else {
                delivery.consumer(snapshots[delivery.position])
                continue
            }
            if let index = queued.lastIndex(where: { $0.queue === queue }) {
                queued[index].deliveries.append(delivery)
            } else {
                queued.append((queue, [delivery]))
            }
        }
        for (queue, deliveries) in queued {
            queue.async { for delivery in deliveries { delivery.consumer(snapshots[delivery.position]) } }
        }
    }

    // MARK: - Logging

    /// Logs what one wait brought: overflows and dropped messages always, each batch at debug level.
    private func report(_ change: RoutingChange, counted now: MonitorStatistics, since before: MonitorStatistics) {
        if now.resynchronizations > before.resynchronizations {
            metrics.resynchronizations.increment(by: now.resynchronizations - before.resynchronizations)
            log(
                .notice, "kernel socket overflowed (ENOBUFS): state re-read, resynchronizations so far: \(now.resynchronizations)"
            )
        }
        if now.foreignMessages > before.foreignMessages {
            let dropped = now.foreignMessages - before.foreignMessages
            metrics.foreignMessages.increment(by: dropped)
            log(.warning, "dropped \(dropped) netlink messages not sent by the kernel (\(now.foreignMessages) so far)")
        }
        if now.malformedMessages > before.malformedMessages {
            let dropped = now.malformedMessages - before.malformedMessages
            metrics.malformedMessages.increment(by: dropped)
            log(.warning, "dropped \(dropped) malformed kernel messages (\(now.malformedMessages) so far)")
        }
        log(.debug, "kernel change: \(change)")
    }

    /// Logs once per distinct label among the loggers of the consumers listening now.
    private func log(_ level: Logger.Level, _ message: @autoclosure () -> Logger.Message) {
        let loggers = state.withLock { state -> [String: Logger] in
            var loggers: [String: Logger] = [:]
            for logger in state.loggers.values where logger.logLevel <= level { loggers[logger.label] = logger }
            return loggers
        }
        guard !loggers.isEmpty else { return }
        let text = message()
        for logger in loggers.values { logger.log(level: level, text) }
    }
}
