import Dispatch
import NetworkReachabilityKit
import Synchronization

/// Many address targets listening at once, each in 10.0.0.0/8 behind the default route, counting deliveries.
///
/// Each step waits for a number of deliveries of one reachability, and ignores the other: a target can hear more
/// than one status after a change. Started within a second of its link coming up, a target evaluated before the
/// kernel's link watch runs (until then the link's operstate shows down) hears `notReachable` and then `reachable`;
/// counting both made the start return early and a later step wait for a delivery that never came.
final class ListeningFleet: @unchecked Sendable {
    private let size: Int
    private let queue = DispatchQueue(label: "fleet")
    private let delivered = Atomic<Int>(0)
    private let target = Atomic<Int>(0)
    /// Whether the current step counts deliveries of a reachable status or of an unreachable one.
    private let awaitsReachable = Atomic<Bool>(true)
    private let reached = DispatchSemaphore(value: 0)
    private var objects: [NetworkReachability] = []  // touched by setup and teardown only
    private(set) var residentBytesPerTarget = 0

    init(size: Int) { self.size = size }

    /// Makes and starts every target, and waits until each one has heard that it is reachable.
    func start() {
        let before = BenchmarkNetwork.residentKiB()
        expect(size, reachable: true)
        for index in 0..<size {
            guard let object = try? NetworkReachability(address: "10.\(index >> 16 & 255).\(index >> 8 & 255).\(index & 255)")
            else { continue }
            object.startListening(onQueue: queue) { [self] status in
                guard status.isReachable == awaitsReachable.load(ordering: .relaxed) else { return }
                if delivered.add(1, ordering: .relaxed).newValue == target.load(ordering: .relaxed) { reached.signal() }
            }
            objects.append(object)
        }
        reached.wait()
        residentBytesPerTarget = max(BenchmarkNetwork.residentKiB() - before, 0) * 1024 / size
    }

    /// Applies a default-route change and returns once every target has heard it.
    func changeDefaultRoute(remove: Bool) {
        expect(size, reachable: !remove)
        BenchmarkNetwork.setDefaultRoute(present: !remove)
        reached.wait()
    }

    /// Adds and removes a /32 route outside 10.0.0.0/8, then makes an unreachable /32 route for the first
    /// target and returns once it heard that: everything before it has been handled by then. Returns the
    /// targets the monitor evaluated meanwhile (ideally only that one).
    func changeUnrelatedRouteThenOneTarget() -> Int {
        let before = objects.first?.monitorStatistics.targetEvaluations ?? 0
        BenchmarkNetwork.setRoute(to: [198, 51, 100, 9], length: 32, present: true)
        BenchmarkNetwork.setRoute(to: [198, 51, 100, 9], length: 32, present: false)
        expect(1, reachable: false)
        BenchmarkNetwork.setRoute(to: [10, 0, 0, 0], length: 32, unreachable: true, present: true)
        reached.wait()
        return (objects.first?.monitorStatistics.targetEvaluations ?? 0) - before
    }

    /// Removes the first target's unreachable route again, and waits until it heard that.
    func restoreFirstTarget() {
        expect(1, reachable: true)
        BenchmarkNetwork.setRoute(to: [10, 0, 0, 0], length: 32, unreachable: true, present: false)
        reached.wait()
    }

    func stop() {
        for object in objects { object.stopListening() }
        objects.removeAll()
    }

    /// Makes the next `count` deliveries of a status that is reachable or not, as `reachable` says, signal `reached`.
    private func expect(_ count: Int, reachable: Bool) {
        awaitsReachable.store(reachable, ordering: .relaxed)
        target.store(delivered.load(ordering: .relaxed) + count, ordering: .relaxed)
    }
}
