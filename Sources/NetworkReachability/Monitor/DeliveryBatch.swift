import Dispatch

/// The queue deliveries of one part of a monitor pass, sent as one block per queue when the part ends: 10,000
/// objects listening on one queue then cost one `async` per part of 256, not 10,000.
///
/// Each queue's deliveries keep the order they were added in. Used only by the thread that made it.
package final class DeliveryBatch {
    /// One snapshot for one consumer, delivered only if the consumer is still there when its turn comes.
    struct Delivery: Sendable {
        let hub: ListenerHub
        let consumer: UInt64
        let handler: ListenerHub.Handler
        /// Where the snapshot is in the batch's list (``hold(_:)``).
        let position: Int

        func callAsFunction(_ snapshots: [ReachabilitySnapshot]) {
            guard hub.contains(consumer) else { return }
            handler(snapshots, at: position)
        }
    }

    /// One queue's deliveries, in the order they were added.
    private struct Group {
        let queue: DispatchQueue
        var deliveries: [Delivery]
    }

    // Unchecked: one thread uses a batch (above), and the runtime's exclusivity check on each access was 40 % of
    // adding a delivery.
    @exclusivity(unchecked) private var groups: [Group] = []
    /// Where each queue's group is, by the queue's identity; most passes see one queue, the last group's.
    private var positions: [ObjectIdentifier: Int] = [:]
    /// Room the next first group reserves (``expect(_:)``).
    private var expected = 0
    /// The snapshots the deliveries name (``hold(_:)``).
    private var snapshots: [ReachabilitySnapshot] = []

    package init() {}

    /// Says about how many deliveries are about to be added (one per registration; a hub with several consumers
    /// adds more): the first queue's group reserves room for that many (most passes see one queue), instead of
    /// growing a part's 256 deliveries by doubling, eight copies and allocations on the way. Until the next ``send()``.
    func expect(_ count: Int) { expected = count }

    /// Holds `snapshots`, which the deliveries added until the next ``send()`` name by position. Each queue's block
    /// shares the list: a copy of its snapshot in each delivery retained the path once more, and released it on the
    /// queue's thread while the monitor's thread retained the same path for the next target.
    func hold(_ snapshots: [ReachabilitySnapshot]) { self.snapshots = snapshots }

    /// Adds `delivery` to those for `queue`. Consumed, so that it moves into the list instead of being copied, with
    /// its references, 10,000 times a pass.
    func add(_ delivery: consuming Delivery, on queue: DispatchQueue) {
        let position: Int
        if let last = groups.indices.last, groups[last].queue === queue {
            position = last
        } else if let known = positions[ObjectIdentifier(queue)] {
            position = known
        } else {
            position = groups.count
            positions[ObjectIdentifier(queue)] = position
            var deliveries: [Delivery] = []
            if position == 0 { deliveries.reserveCapacity(expected) }
            groups.append(Group(queue: queue, deliveries: deliveries))
        }
        groups[position].deliveries.append(delivery)
    }

    /// Sends each queue its deliveries as one block, and starts over empty.
    package func send() {
        for group in groups {
            let (deliveries, snapshots) = (group.deliveries, snapshots)
            group.queue.async { @Sendable in
                for delivery in deliveries { delivery(snapshots) }
            }
        }
        groups.removeAll()
        positions.removeAll()
        expected = 0
        snapshots = []
    }
}
