import Dispatch
import Logging

/// Fans one object's monitor registration out to its consumers (the closure listener, each async
/// sequence, the notification bridge), each with its own de-duplication.
///
/// The registration exists while at least one consumer does. A consumer added after the first
/// evaluation hears the latest snapshot at once, so nobody misses the initial state.
final class ListenerHub: Sendable {
    /// What must change before a consumer hears again.
    enum Deduplication: Sendable {
        /// The flags (Alamofire's rule): a status listener never hears the same flags twice.
        case flags
        /// Flags or path: richer views hear a new gateway or interface too.
        case snapshot
    }

    /// What a consumer calls: a closure that takes the snapshot, or a closure listener, which takes its status.
    /// The listener is kept as it was given: wrapping it in a closure that reads the status cost every listening
    /// object a closure context.
    enum Handler: Sendable {
        case snapshot(@Sendable (ReachabilitySnapshot) -> Void)
        case status(@Sendable (NetworkReachabilityStatus) -> Void)

        func callAsFunction(_ snapshot: ReachabilitySnapshot) {
            switch self {
            case .snapshot(let deliver): deliver(snapshot)
            case .status(let listener): listener(snapshot.status)
            }
        }

        /// Calls with the snapshot at `position`; a status listener is handed the status read in place, as passing
        /// it the snapshot copied the snapshot, path and all.
        func callAsFunction(_ snapshots: [ReachabilitySnapshot], at position: Int) {
            switch self {
            case .snapshot(let deliver): deliver(snapshots[position])
            case .status(let listener): listener(snapshots[position].status)
            }
        }
    }

    // References and words first, the handler's enum and the flags last: 72 bytes, not 80.
    private struct Consumer {
        let id: UInt64
        /// The name under which at most one consumer lives, if it has one.
        let slot: String?
        let queue: DispatchQueue?
        let finish: (@Sendable () -> Void)?
        /// Called on `queue` (in the pass's batch), or straight from the monitor's thread when it has none.
        let handler: Handler
        let deduplication: Deduplication
        var hasHeard = false

        /// Whether the consumer hears `snapshot`, which follows `previous`, the hub's latest one before it.
        ///
        /// A consumer that has heard anything last heard what equals `previous` under its deduplication: it was
        /// added with the latest snapshot, and heard every later one that differed from the one before. So it
        /// keeps no snapshot of its own.
        mutating func accepts(_ snapshot: ReachabilitySnapshot, after previous: EvaluatedState?) -> Bool {
            let isNew: Bool
            switch (hasHeard ? previous : nil, deduplication) {
            case (nil, _): isNew = true
            case (let previous?, .flags): isNew = previous.flags != snapshot.flags
            case (let previous?, .snapshot): isNew = !previous.matches(snapshot)
            }
            if isNew { hasHeard = true }
            return isNew
        }
    }

    /// Why the last registration ended on its own; boxed, as every object's state has room for it.
    private final class Ending: Sendable {
        let error: ReachabilityError
        init(_ error: ReachabilityError) { self.error = error }
    }

    private struct State {
        /// In the order they were added; one or two per object, where a dictionary would cost each object
        /// hundreds of bytes, and the first inline.
        var consumers = InlineFirstArray<Consumer>()
        var nextID: UInt64 = 1
        /// The monitor's id for the current registration; a delivery with another is a late one of an earlier
        /// registration.
        var registration: UInt64?
        /// The latest snapshot of the current registration; the target is the hub's own.
        var latest: EvaluatedState?
        var ending: Ending?
    }

    let target: ReachabilityTarget
    let resolutionTimeout: Duration
    let logger: Logger
    private let monitor: ReachabilityMonitor
    // Guarded by its lock; the monitor is never unregistered while it is held (that joins the monitor thread).
    private let state = Locked(State())

    init(target: ReachabilityTarget, resolutionTimeout: Duration, logger: Logger, monitor: ReachabilityMonitor) {
        self.target = target
        self.resolutionTimeout = resolutionTimeout
        self.logger = logger
        self.monitor = monitor
    }

    // MARK: - Consumers

    /// Adds a consumer; registers with the monitor when it is the first.
    ///
    /// - Parameters:
    ///   - slot: a name under which at most one consumer lives; adding to a taken slot replaces it.
    ///   - queue: where `handler` is called; without one, straight from the monitor's thread, where it must
    ///     return quickly and never block.
    ///   - finish: called once when the consumer is removed or listening ends on its own.
    /// - Returns: the consumer's id.
    @discardableResult
    func add(
        slot: String? = nil, deduplication: Deduplication, queue: DispatchQueue? = nil,
        handler: Handler, finish: (@Sendable () -> Void)? = nil
    ) throws(ReachabilityError) -> UInt64 {
        if let slot { remove(slot: slot) }
        let (id, initial) = try state.withLock {
            (state: inout State) throws(ReachabilityError) -> (UInt64, ReachabilitySnapshot?) in
            if state.registration == nil {
                // The monitor holds the hub strongly while registered: the registration ends when the owner goes
                // (its deinit removes every consumer) or the last consumer leaves. A weak reference would give
                // each hub a side table (32 bytes), and make every retain and release of it a slow one.
                state.registration = try monitor.register(
                    target, resolutionTimeout: resolutionTimeout, logger: logger, subscriber: self)
                state.ending = nil
            }
            let id = state.nextID
            state.nextID += 1
            let initial = state.latest?.snapshot(of: target)
            state.consumers.append(
                Consumer(
                    id: id, slot: slot, queue: queue, finish: finish, handler: handler, deduplication: deduplication,
                    hasHeard: initial != nil))
            return (id, initial)
        }
        if let initial, let queue {
            let batch = DeliveryBatch()
            batch.hold([initial])
            enqueue(0, for: id, handler: handler, on: queue, batch: batch)
            batch.send()
        } else if let initial {
            handler(initial)
        }
        return id
    }

    /// Whether the consumer is still there (a queued delivery checks this before calling user code).
    func contains(_ id: UInt64) -> Bool { state.withLock { $0.consumers.firstIndex { $0.id == id } != nil } }

    /// Removes a consumer; the last one out unregisters from the monitor.
    func remove(_ id: UInt64) {
        let (consumer, registration) = state.withLock { state -> (Consumer?, UInt64?) in
            guard let position = state.consumers.firstIndex(where: { $0.id == id }) else { return (nil, nil) }
            let consumer = state.consumers.remove(at: position)
            return (consumer, state.consumers.isEmpty ? Self.takeRegistration(&state) : nil)
        }
        consumer?.finish?()
        if let registration { monitor.unregister(registration, of: target) }
    }

    /// Removes the consumer in `slot`, if any. Returns whether there was one.
    @discardableResult
    func remove(slot: String) -> Bool {
        guard let id = state.withLock({ state in state.consumers.firstIndex { $0.slot == slot }.map { state.consumers[$0].id } })
        else { return false }
        remove(id)
        return true
    }

    /// Removes every consumer and ends every sequence: the owner was released.
    func removeAll() {
        let (consumers, registration) = state.withLock { state in
            let consumers = state.consumers
            state.consumers.removeAll()
            return (consumers, Self.takeRegistration(&state))
        }
        for consumer in consumers { consumer.finish?() }
        if let registration { monitor.unregister(registration, of: target) }
    }

    /// Why listening ended on its own (the subscription failed for good), until listening starts again.
    var failure: ReachabilityError? { state.withLock { $0.ending?.error } }

    // MARK: - Delivery

    /// Adds the snapshot at `position` of those `batch` holds for the consumer `id`, to be handed to `handler` on
    /// `queue`.
    private func enqueue(_ position: Int, for id: UInt64, handler: Handler, on queue: DispatchQueue, batch: DeliveryBatch) {
        batch.add(DeliveryBatch.Delivery(hub: self, consumer: id, handler: handler, position: position), on: queue)
    }

    private static func takeRegistration(_ state: inout State) -> UInt64? {
        defer {
            state.registration = nil
            state.latest = nil
        }
        return state.registration
    }
}

extension ListenerHub: MonitorSubscriber {
    func receive(_ snapshot: ReachabilitySnapshot, at position: Int, registration: UInt64, batch: DeliveryBatch) {
        // A consumer with a queue goes into the batch from inside the lock, which calls no user code: carrying the
        // consumer out of it copied the handler twice, 10,000 times a pass. Only the handlers of consumers without a
        // queue (sequences, `reach watch`) are collected, to be called once the lock is released: the first inline, as
        // an array would be allocated and freed for each of their deliveries.
        var direct = InlineFirstArray<Handler>()
        state.withLock { state in
            guard state.registration == registration else { return }
            // Taken, not copied: the copy retained the last path only to release it with the replaced one.
            let previous = state.latest.take()
            state.latest = EvaluatedState(snapshot)
            // Each consumer is updated and read in one visit, in place: reading `consumers[index]` copies it out.
            for index in state.consumers.indices {
                state.consumers.update(at: index) { consumer in
                    guard consumer.accepts(snapshot, after: previous) else { return }
                    if let queue = consumer.queue {
                        enqueue(position, for: consumer.id, handler: consumer.handler, on: queue, batch: batch)
                    } else {
                        direct.append(consumer.handler)
                    }
                }
            }
        }
        for handler in direct { handler(snapshot) }
    }

    /// The monitor dropped the registration for good: every consumer ends, and the next one registers anew.
    func registrationEnded(_ registration: UInt64, because error: ReachabilityError) {
        let consumers = state.withLock { state -> InlineFirstArray<Consumer> in
            guard state.registration == registration else { return InlineFirstArray() }
            state.ending = Ending(error)
            state.registration = nil
            state.latest = nil
            let consumers = state.consumers
            state.consumers.removeAll()
            return consumers
        }
        for consumer in consumers { consumer.finish?() }
    }
}
