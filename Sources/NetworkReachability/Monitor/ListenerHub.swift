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

    /// Called on the monitor's thread with the consumer's id; must not block. A delivery to a dispatch queue
    /// goes into the batch, which is sent when the pass (or the initial delivery) is over.
    typealias Deliver = @Sendable (_ consumer: UInt64, ReachabilitySnapshot, DeliveryBatch) -> Void

    private struct Consumer {
        let id: UInt64
        /// The name under which at most one consumer lives, if it has one.
        let slot: String?
        var deduplication: Deduplication
        var deliver: Deliver
        var finish: (@Sendable () -> Void)?
        var lastDelivered: ReachabilitySnapshot?

        mutating func accepts(_ snapshot: ReachabilitySnapshot) -> Bool {
            let isNew: Bool
            switch deduplication {
            case .flags: isNew = lastDelivered?.flags != snapshot.flags
            case .snapshot: isNew = lastDelivered != snapshot
            }
            if isNew { lastDelivered = snapshot }
            return isNew
        }
    }

    private struct State {
        /// In the order they were added; one or two per object, where a dictionary would cost each object
        /// hundreds of bytes.
        var consumers: [Consumer] = []
        var nextID: UInt64 = 1
        var registration: UInt64?
        /// Tells the current registration's deliveries from late ones of a previous registration.
        var registrationTag: UInt64?
        var latest: ReachabilitySnapshot?
        /// Why the last registration ended on its own, until a new one starts.
        var failure: ReachabilityError?
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
    /// - Parameter slot: a name under which at most one consumer lives; adding to a taken slot replaces it.
    /// - Returns: the consumer's id.
    @discardableResult
    func add(
        slot: String? = nil, deduplication: Deduplication, deliver: @escaping Deliver, finish: (@Sendable () -> Void)? = nil
    ) throws(ReachabilityError) -> UInt64 {
        if let slot { remove(slot: slot) }
        let (id, initial) = try state.withLock {
            (state: inout State) throws(ReachabilityError) -> (UInt64, ReachabilitySnapshot?) in
            if state.registration == nil {
                // A registration's sink only reaches this hub while that registration is the current one. It holds
                // the hub strongly: the registration ends when the owner goes (its deinit removes every consumer)
                // or the last consumer leaves, and that drops the closures. A weak reference would give each hub a
                // side table (32 bytes), and make every retain and release of it, in every pass, a slow one.
                let hubID = state.nextID
                state.nextID += 1
                state.registration = try monitor.register(
                    target, resolutionTimeout: resolutionTimeout, logger: logger,
                    onFailure: { error in self.fail(error, registration: hubID) }
                ) { snapshot, batch in
                    self.receive(snapshot, registration: hubID, batch: batch)
                }
                state.registrationTag = hubID
                state.failure = nil
            }
            let id = state.nextID
            state.nextID += 1
            var consumer = Consumer(id: id, slot: slot, deduplication: deduplication, deliver: deliver, finish: finish)
            let initial = state.latest.flatMap { consumer.accepts($0) ? $0 : nil }
            state.consumers.append(consumer)
            return (id, initial)
        }
        if let initial {
            let batch = DeliveryBatch()
            deliver(id, initial, batch)
            batch.send()
        }
        return id
    }

    /// Whether the consumer is still there (a queued delivery checks this before calling user code).
    func contains(_ id: UInt64) -> Bool { state.withLock { $0.consumers.contains { $0.id == id } } }

    /// Removes a consumer; the last one out unregisters from the monitor.
    func remove(_ id: UInt64) {
        let (consumer, registration) = state.withLock { state -> (Consumer?, UInt64?) in
            guard let position = state.consumers.firstIndex(where: { $0.id == id }) else { return (nil, nil) }
            let consumer = state.consumers.remove(at: position)
            return (consumer, state.consumers.isEmpty ? Self.takeRegistration(&state) : nil)
        }
        consumer?.finish?()
        if let registration { monitor.unregister(registration) }
    }

    /// Removes the consumer in `slot`, if any. Returns whether there was one.
    @discardableResult
    func remove(slot: String) -> Bool {
        guard let id = state.withLock({ $0.consumers.first { $0.slot == slot }?.id }) else { return false }
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
        if let registration { monitor.unregister(registration) }
    }

    /// Why listening ended on its own (the subscription failed for good), until listening starts again.
    var failure: ReachabilityError? { state.withLock { $0.failure } }

    // MARK: - Delivery

    /// The monitor dropped the registration for good: every consumer ends, and the next one registers anew.
    private func fail(_ error: ReachabilityError, registration tag: UInt64) {
        let consumers: [Consumer] = state.withLock { state in
            guard state.registrationTag == tag else { return [] }
            state.failure = error
            state.registration = nil
            state.registrationTag = nil
            state.latest = nil
            let consumers = state.consumers
            state.consumers.removeAll()
            return consumers
        }
        for consumer in consumers { consumer.finish?() }
    }

    /// A consumer that accepted a snapshot, called once the lock is released.
    private struct Acceptance {
        let deliver: Deliver
        let consumer: UInt64
    }

    private func receive(_ snapshot: ReachabilitySnapshot, registration tag: UInt64, batch: DeliveryBatch) {
        // Most objects have one consumer: it goes without an array, which 10,000 objects would each allocate
        // and free in every pass.
        let (first, others): (Acceptance?, [Acceptance]) = state.withLock { state in
            guard state.registrationTag == tag else { return (nil, []) }
            state.latest = snapshot
            var first: Acceptance?
            var others: [Acceptance] = []
            // Through indices, so each consumer is updated in place.
            for index in state.consumers.indices where state.consumers[index].accepts(snapshot) {
                let acceptance = Acceptance(deliver: state.consumers[index].deliver, consumer: state.consumers[index].id)
                if first == nil { first = acceptance } else { others.append(acceptance) }
            }
            return (first, others)
        }
        if let first { first.deliver(first.consumer, snapshot, batch) }
        for acceptance in others { acceptance.deliver(acceptance.consumer, snapshot, batch) }
    }

    private static func takeRegistration(_ state: inout State) -> UInt64? {
        defer {
            state.registration = nil
            state.registrationTag = nil
            state.latest = nil
        }
        return state.registration
    }
}
