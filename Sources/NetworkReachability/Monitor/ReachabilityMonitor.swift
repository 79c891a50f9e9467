import Logging

/// The one kernel subscription that serves every listening object of a backend.
///
/// Registrations are evaluated on the monitor's own thread: first once after they arrive (their initial
/// state), then after every batch of kernel changes. A registration hears a snapshot only when it differs
/// from the last one it heard. The subscription opens with the first registration and closes, with every
/// descriptor, when the last one leaves.
package final class ReachabilityMonitor: Sendable {
    /// Kept in its target's slot: a table of registrations by id cost every listening target about 65 bytes, and
    /// a lookup per delivery.
    private struct Registration {
        let id: UInt64
        let subscriber: any MonitorSubscriber
        /// Whether it has heard its target's ``TargetSlot/last`` snapshot.
        var isCurrent = false
    }

    // A pass's lists hold these structs, not tuples: an array of tuples is destroyed through the runtime's
    // generic tuple witnesses, and a labelled one built from unlabelled tuples is cast element by element.

    /// A target a pass evaluates, with its slot number.
    private struct DueTarget {
        let slot: Int
        let target: ReachabilityTarget
    }

    /// A snapshot for one registration's subscriber, called once the lock is released: the snapshot at `position`
    /// in the part's list. (Holding a copy retained and released its path once more per target; with 10,000 targets
    /// sharing one path, on a reference the delivery queue's thread counts too.)
    private struct Delivery {
        let subscriber: any MonitorSubscriber
        let registration: UInt64
        let position: Int
    }

    /// One distinct target, evaluated once per pass however many registrations share it.
    private struct TargetSlot {
        let target: ReachabilityTarget
        /// Nearly always one.
        var registrations = InlineFirstArray<Registration>()
        /// The last evaluation's answer.
        var last: EvaluatedState?
    }

    private final class Loop: Sendable {
        /// Replaced only by the loop's own thread, when a failed subscription is reopened.
        let current: Locked<any RoutingChangeSource>
        let stopRequested = Locked(false)
        let thread = Locked(ThreadState.starting)
        init(source: any RoutingChangeSource) { current = Locked(source) }
        var source: any RoutingChangeSource { current.withLock { $0 } }
        var runningThread: DedicatedThread? {
            thread.withLock { state in if case .running(let thread) = state { thread } else { nil } }
        }
    }

    /// The loop's thread as its starter and its end see it: whichever comes second joins or detaches it.
    private enum ThreadState {
        /// Not started yet, or its handle not stored yet.
        case starting
        case running(DedicatedThread)
        /// Ended on its own (the subscription failed for good) before its handle was stored.
        case ended
    }

    private struct State {
        var registrationCount = 0
        /// Each distinct target's slot, at a number given when its first registration arrives and free again
        /// when its last one leaves: the numbers stay dense, so that sets of them are bitmaps (``SlotSet``).
        var slots = ChunkedArray<TargetSlot?>()
        /// The slot number of each target, found through the slots' own targets.
        var slotIndex = NumberIndex()
        var freeSlotIDs: [Int] = []
        /// What each evaluated target's last answer rests on, by slot number.
        var dependencies = DependencyIndex()
        /// Slots to evaluate in the next pass whatever the changes: new registrations, new host resolutions.
        var due = SlotSet()
        var nextID: UInt64 = 1
        var loop: Loop?
        var retiredStatistics = MonitorStatistics()
        var targetEvaluations = 0
        /// Where the monitor's own events go: the loggers of the registrations that log anything at all (a
        /// silent logger's level is `critical`); ``log(_:_:)`` writes once per label.
        var loggers: [UInt64: Logger] = [:]
    }

    // Guarded by its lock; never held while calling a subscriber or joining the thread.
    private let state = Locked(State())
    private let openSource: @Sendable () throws(ReachabilityError) -> any RoutingChangeSource
    private let hosts: HostDirectory

    init(
        hosts: HostDirectory, provisioning: ProvisioningDirectory,
        openSource: @escaping @Sendable () throws(ReachabilityError) -> any RoutingChangeSource
    ) {
        self.hosts = hosts
        self.openSource = openSource
        hosts.onChange { [weak self] name in self?.reevaluate { $0 == .host(name) } }
        // A DNS64 answer can change the internet's prefixes and every IPv4 address's path (hosts' too).
        provisioning.onChange { [weak self] in self?.reevaluate { _ in true } }
    }

    // MARK: - Registration

    /// Starts delivering `target`'s snapshots to `subscriber`, the first as soon as it is evaluated.
    ///
    /// - Returns: an id for ``unregister(_:of:)``, which also comes with each delivery.
    /// - Throws: when the subscription cannot be opened.
    func register(
        _ target: ReachabilityTarget, resolutionTimeout: Duration, logger: Logger = NetworkReachability.silentLogger,
        subscriber: any MonitorSubscriber
    ) throws(ReachabilityError) -> UInt64 {
        // Watch before the registration is visible, so no evaluation can meet the name unknown to the directory.
        if case .host(let name) = target { hosts.watch(name, timeout: resolutionTimeout) }
        let registered: (UInt64, Loop, Bool)
        do {
            registered = try register(target, logger: logger, subscriber: subscriber)
        } catch {
            if case .host(let name) = target { hosts.unwatch(name) }
            throw error
        }
        let (id, loop, isNew) = registered
        if isNew {
            do {
                let thread = try DedicatedThread { [self] in run(loop) }
                let endedAlready = loop.thread.withLock { state in
                    guard case .starting = state else { return true }
                    state = .running(thread)
                    return false
                }
                if endedAlready { thread.detach() }
            } catch {
                unregister(id, of: target)
                throw error
            }
        }
        loop.source.wake()
        return id
    }

    /// Adds the registration, opening the subscription when it is the first; returns its id, the loop, and
    /// whether the loop is new (then the caller starts its thread).
    private func register(
        _ target: ReachabilityTarget, logger: Logger, subscriber: any MonitorSubscriber
    ) throws(ReachabilityError) -> (UInt64, Loop, Bool) {
        try state.withLock { (state: inout State) throws(ReachabilityError) -> (UInt64, Loop, Bool) in
            let id = state.nextID
            state.nextID += 1
            let existing = state.loop
            let loop: Loop
            if let existing {
                loop = existing
            } else {
                loop = Loop(source: try openSource())
            }
            state.loop = loop
            let slotID: Int
            if let existing = Self.slotID(of: target, in: state) {
                slotID = existing
            } else {
                if let free = state.freeSlotIDs.popLast() {
                    slotID = free
                } else {
                    slotID = state.slots.count
                    state.slots.append(nil)
                }
                state.slots[slotID] = TargetSlot(target: target)
                state.slotIndex.insert(slotID) { state.slots.read(at: $0) { $0!.target } }
            }
            state.slots[slotID]?.registrations.append(Registration(id: id, subscriber: subscriber))
            state.registrationCount += 1
            state.due.insert(slotID)
            if logger.logLevel < .critical { state.loggers[id] = logger }
            return (id, loop, existing == nil)
        }
    }

    /// Stops delivering to a registration of `target`; the last one out closes the subscription and joins its
    /// thread.
    ///
    /// Safe from any thread, a subscriber's delivery included; its subscriber hears nothing more once this returns.
    func unregister(_ id: UInt64, of target: ReachabilityTarget) {
        let (found, finished): (Bool, Loop?) = state.withLock { state in
            guard let slotID = Self.slotID(of: target, in: state),
                let position = state.slots[slotID]?.registrations.firstIndex(where: { $0.id == id })
            else { return (false, nil) }
            state.slots[slotID]?.registrations.remove(at: position)
            state.registrationCount -= 1
            if state.slots[slotID]?.registrations.isEmpty == true {
                state.slotIndex.remove(target) { state.slots.read(at: $0) { $0!.target } }  // while the slot holds it
                state.slots[slotID] = nil
                state.freeSlotIDs.append(slotID)
                state.dependencies.remove(slotID)
                state.due.remove(slotID)
            }
            state.loggers[id] = nil
            guard state.registrationCount == 0, let loop = state.loop else { return (true, nil) }
            state.loop = nil
            state.retiredStatistics = Self.sum(state.retiredStatistics, loop.source.statistics)
            return (true, loop)
        }
        if found, case .host(let name) = target { hosts.unwatch(name) }
        guard let finished else { return }
        finished.stopRequested.withLock { $0 = true }
        finished.source.wake()
        finished.runningThread?.join()
    }

    /// The slot number of `target`, if it has a slot.
    private static func slotID(of target: ReachabilityTarget, in state: State) -> Int? {
        state.slotIndex.number(of: target) { state.slots.read(at: $0) { $0!.target } }
    }

    /// Evaluates every registration whose target matches again soon (a host's resolution, or what DNS64
    /// revealed, changed).
    func reevaluate(where matches: (ReachabilityTarget) -> Bool) {
        let loop: Loop? = state.withLock { state in
            let matching = state.slotIndex.numbers.filter { state.slots.read(at: $0) { $0.map { matches($0.target) } ?? false } }
            for slotID in matching { state.due.insert(slotID) }
            return matching.isEmpty ? nil : state.loop
        }
        loop?.source.wake()
    }

    /// What the subscriptions of this monitor have counted, the current one included.
    package var statistics: MonitorStatistics {
        state.withLock { state in
            var total = state.loop.map { Self.sum(state.retiredStatistics, $0.source.statistics) } ?? state.retiredStatistics
            total.targetEvaluations = state.targetEvaluations
            return total
        }
    }

    /// The descriptors the open subscription holds (none when closed).
    package var openDescriptors: [Int32] { state.withLock { $0.loop?.source.descriptors ?? [] } }

    /// Whether a subscription is open now.
    package var isSubscribed: Bool { state.withLock { $0.loop != nil } }

    // MARK: - The loop

    private func run(_ loop: Loop) {
        var change = RoutingChange.woken
        var reopened = false
        var finalError: ReachabilityError?
        while !loop.stopRequested.withLock({ $0 }) {
            if case .failed(let error) = change {
                // Reopen once and re-evaluate everything: a lost subscription must not leave stale answers.
                // A deleted namespace cannot come back, so there is nothing to reopen.
                let retry = !reopened && !Self.isFinal(error)
                log(.error, "kernel subscription failed: \(error)\(retry ? "; reopening it" : "; giving up")")
                guard retry, let fresh = try? openSource() else {
                    finalError = error
                    break
                }
                reopened = true
                let failed = loop.current.withLock { current in
                    defer { current = fresh }
                    return current
                }
                failed.close()
                change = .resynchronized
                continue
            }
            let changes: NetworkChanges
            switch change {
            case .changed(let touched):
                hosts.refreshWatched()
                changes = touched
            case .resynchronized:
                hosts.refreshWatched()
                changes = .everything
            case .resolverConfigurationChanged:
                hosts.refreshWatched()
                changes = NetworkChanges()
            case .advertisementsChanged: changes = .everything
            case .woken, .failed: changes = NetworkChanges()
            }
            evaluate(after: changes, source: loop.source)
            let before = loop.source.statistics
            change = loop.source.waitForChanges()
            report(change, counted: loop.source.statistics, since: before)
        }
        loop.source.close()
        if let finalError { abandon(loop, because: finalError) }
    }

    private static func isFinal(_ error: ReachabilityError) -> Bool {
        if case .networkNamespaceDeleted = error { return true }
        return false
    }

    /// After an unrecoverable failure: every registration is dropped and told why, so sequences end instead of
    /// waiting forever, and the next registration opens a new subscription.
    private func abandon(_ loop: Loop, because error: ReachabilityError) {
        let dropped: [(Registration, ReachabilityTarget)] = state.withLock { state in
            guard state.loop === loop else { return [] }  // the last registration left meanwhile
            state.loop = nil
            state.retiredStatistics = Self.sum(state.retiredStatistics, loop.source.statistics)
            defer {
                state.registrationCount = 0
                state.slots.removeAll()
                state.slotIndex.removeAll()
                state.freeSlotIDs.removeAll()
                state.dependencies = DependencyIndex()
                state.due = SlotSet()
                state.loggers.removeAll()
            }
            var dropped: [(Registration, ReachabilityTarget)] = []
            for case let slot? in state.slots {
                for registration in slot.registrations { dropped.append((registration, slot.target)) }
            }
            return dropped
        }
        guard !dropped.isEmpty else { return }
        // On its own thread: detaches, as nobody will join it now; not started yet, its starter detaches it.
        loop.thread.withLock { (state: inout ThreadState) -> DedicatedThread? in
            guard case .running(let thread) = state else {
                state = .ended
                return nil
            }
            return thread
        }?.join()
        for (registration, target) in dropped {
            if case .host(let name) = target { hosts.unwatch(name) }
            registration.subscriber.registrationEnded(registration.id, because: error)
        }
    }

    /// Evaluates the targets `changes` can have touched and those marked due (new registrations, hosts
    /// with a new resolution), each distinct target once, then delivers a snapshot to every registration
    /// that has not heard it. Targets go through in parts of ``partSize``, each evaluated, recorded and delivered
    /// before the next.
    private func evaluate(after changes: NetworkChanges, source: any RoutingChangeSource) {
        let (due, marked): (SlotSet, SlotSet) = state.withLock { state in
            var due = state.dependencies.affected(by: changes)
            let marked = state.due
            due.formUnion(marked)  // not evaluated yet, or marked
            state.due = SlotSet()
            return (due, marked)
        }
        guard !due.isEmpty else { return }
        let batch = DeliveryBatch()
        var part: [Int] = []
        part.reserveCapacity(Self.partSize)
        for slotID in due {
            part.append(slotID)
            guard part.count == Self.partSize else { continue }
            evaluate(part, marked: marked, after: changes, source: source, batch: batch)
            part.removeAll(keepingCapacity: true)
        }
        if !part.isEmpty { evaluate(part, marked: marked, after: changes, source: source, batch: batch) }
    }

    /// Due targets per part of a pass. 10,000 targets in one part made arrays of megabytes that the allocator
    /// mapped afresh for every pass: a sixth of the pass went to the kernel clearing their pages. Parts this size
    /// reuse memory the allocator keeps, and the first parts' deliveries run on their queues while later parts
    /// are evaluated.
    static let partSize = 256

    /// One part of a pass: `slotIDs`' targets evaluated, their answers recorded, and what changed delivered.
    private func evaluate(
        _ slotIDs: [Int], marked: SlotSet, after changes: NetworkChanges, source: any RoutingChangeSource,
        batch: DeliveryBatch
    ) {
        let (due, groups): ([DueTarget], [SharedRouteGroup]) = state.withLock { state in
            // A slot emptied since the pass began is skipped; one reused meanwhile is evaluated for its new target.
            let evaluated = slotIDs.compactMap { slotID in
                state.slots.read(at: slotID) { $0.map { DueTarget(slot: slotID, target: $0.target) } }
            }
            state.targetEvaluations += evaluated.count
            guard SharedRouteGroup.mayForm(after: changes) else { return (evaluated, []) }
            let groups = SharedRouteGroup.form(
                evaluated.map(\.target), matches: evaluated.map { state.dependencies.match(of: $0.slot) },
                isMarked: evaluated.map { marked.contains($0.slot) }, after: changes)
            return (evaluated, groups)
        }
        guard !due.isEmpty else { return }
        var evaluations = source.evaluate(due.map(\.target), sharing: groups)
        // Failures are logged once the lock is released. (A loop of their own over the evaluations copied each one.)
        var failures: [(target: ReachabilityTarget, error: ReachabilityError)] = []
        // By position and in place: copying slots, registrations and snapshots in and out cost more than the
        // comparisons themselves with 10,000 targets (reading a slot through `state.slots[slotID]?.…` copies
        // the whole slot each time).
        let (snapshots, deliveries): ([ReachabilitySnapshot], [Delivery]) = state.withLock { state in
            var snapshots: [ReachabilitySnapshot] = []
            snapshots.reserveCapacity(due.count)
            var deliveries: [Delivery] = []
            deliveries.reserveCapacity(due.count)
            for position in due.indices {
                let slotID = due[position].slot
                // Moved out of the evaluation, not copied: a copy retained the path only to release it later.
                let snapshot: ReachabilitySnapshot
                switch evaluations[position].takeResult() {
                case .success(let evaluated): snapshot = evaluated
                case .failure(let error):
                    failures.append((due[position].target, error))
                    snapshot = ReachabilitySnapshot(target: due[position].target, flags: [], path: .none)
                }
                let holdsTarget = state.slots.update(at: slotID) { slot in
                    // In place through `!`: binding the slot, or taking it out, copied it in and out.
                    guard slot != nil else { return false }
                    return Self.record(snapshot, at: position, of: due[position].target, in: &slot!, deliveries: &deliveries)
                }
                snapshots.append(consume snapshot)
                guard holdsTarget else { continue }
                state.dependencies.set(evaluations[position].takeDependency(), for: slotID)
            }
            return (snapshots, deliveries)
        }
        for (target, error) in failures { log(.warning, "evaluating \(target) failed: \(error)") }
        batch.expect(deliveries.count)
        batch.hold(snapshots)
        for delivery in deliveries {
            delivery.subscriber.receive(
                snapshots[delivery.position], at: delivery.position, registration: delivery.registration, batch: batch)
        }
        batch.send()
        // A host's pending state has now been heard: only then may its first resolution start.
        for entry in due { if case .host(let name) = entry.target { hosts.beginResolving(name) } }
    }

    /// Keeps `target`'s `snapshot` (the part's snapshot at `position`) as the slot's last answer, in place, and adds a
    /// delivery for each of the slot's registrations that has not heard it: all of them when it differs from the one
    /// before. Returns whether the slot still holds `target` (its last registration may have left during the pass,
    /// and its number gone to another target).
    private static func record(
        _ snapshot: ReachabilitySnapshot, at position: Int, of target: ReachabilityTarget, in slot: inout TargetSlot,
        deliveries: inout [Delivery]
    ) -> Bool {
        guard slot.target == target else { return false }
        let isNew = slot.last.map { !$0.matches(snapshot) } ?? true
        if isNew { slot.last = EvaluatedState(snapshot) }
        for index in slot.registrations.indices {
            // Read and marked in one visit: reading `registrations[index]` copies the registration out.
            let delivery = slot.registrations.update(at: index) { registration -> Delivery? in
                guard isNew || !registration.isCurrent else { return nil }
                registration.isCurrent = true
                return Delivery(subscriber: registration.subscriber, registration: registration.id, position: position)
            }
            if let delivery { deliveries.append(delivery) }
        }
        return true
    }

    // MARK: - Logging

    /// Logs what one wait brought: overflows and dropped messages always, each batch at debug level.
    private func report(_ change: RoutingChange, counted now: MonitorStatistics, since before: MonitorStatistics) {
        if now.resynchronizations > before.resynchronizations {
            log(
                .notice, "kernel socket overflowed (ENOBUFS): state re-read, resynchronizations so far: \(now.resynchronizations)"
            )
        }
        if now.foreignMessages > before.foreignMessages {
            log(
                .warning,
                "dropped \(now.foreignMessages - before.foreignMessages) netlink messages not sent by the kernel (\(now.foreignMessages) so far)"
            )
        }
        if now.malformedMessages > before.malformedMessages {
            log(
                .warning,
                "dropped \(now.malformedMessages - before.malformedMessages) malformed kernel messages (\(now.malformedMessages) so far)"
            )
        }
        log(.debug, "kernel change: \(change)")
    }

    private func log(_ level: Logger.Level, _ message: @autoclosure () -> Logger.Message) {
        let loggers = state.withLock { state -> [String: Logger] in
            // Most passes log at debug level with nobody listening: then nothing more is built.
            let listening = state.loggers.values.filter { $0.logLevel <= level }
            guard !listening.isEmpty else { return [:] }
            return Dictionary(listening.map { ($0.label, $0) }, uniquingKeysWith: { a, _ in a })
        }
        guard !loggers.isEmpty else { return }
        let text = message()
        for logger in loggers.values { logger.log(level: level, text) }
    }

    private static func sum(_ a: MonitorStatistics, _ b: MonitorStatistics) -> MonitorStatistics {
        var total = a
        total.malformedMessages += b.malformedMessages
        total.foreignMessages += b.foreignMessages
        total.resynchronizations += b.resynchronizations
        total.kernelRequests += b.kernelRequests
        return total
    }
}
