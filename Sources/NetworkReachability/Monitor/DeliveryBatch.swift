import Dispatch

/// The queue deliveries of one monitor pass, sent as one block per queue when the pass ends: 10,000 objects
/// listening on one queue then cost one `async` and at most one thread woken, not 10,000 of each.
///
/// Each queue's deliveries keep the order they were added in. Used only by the thread that made it.
package final class DeliveryBatch {
    /// One snapshot for one consumer, delivered only if the consumer is still there when its turn comes.
    struct Delivery: Sendable {
        let hub: ListenerHub
        let consumer: UInt64
        let deliver: @Sendable (ReachabilitySnapshot) -> Void
        let snapshot: ReachabilitySnapshot

        func callAsFunction() {
            guard hub.contains(consumer) else { return }
            deliver(snapshot)
        }
    }

    private var queues: [DispatchQueue] = []
    private var deliveries: [[Delivery]] = []
    /// Where each queue's deliveries are, by the queue's identity; most passes see one queue.
    private var positions: [ObjectIdentifier: Int] = [:]

    package init() {}

    /// Adds `delivery` to those for `queue`.
    func add(_ delivery: Delivery, on queue: DispatchQueue) {
        let key = ObjectIdentifier(queue)
        if let position = queues.indices.last, queues[position] === queue {
            deliveries[position].append(delivery)
        } else if let position = positions[key] {
            deliveries[position].append(delivery)
        } else {
            positions[key] = queues.count
            queues.append(queue)
            deliveries.append([delivery])
        }
    }

    /// Sends each queue its deliveries as one block, and starts over empty.
    package func send() {
        for (queue, batch) in zip(queues, deliveries) {
            queue.async { @Sendable in
                for delivery in batch { delivery() }
            }
        }
        queues.removeAll()
        deliveries.removeAll()
        positions.removeAll()
    }
}
