import Dispatch
import NetworkReachability
import Synchronization

/// Many address targets listening at once, each in 10.0.0.0/8 behind the default route, counting deliveries.
final class ListeningFleet: @unchecked Sendable {
    private let size: Int
    private let queue = DispatchQueue(label: "fleet")
    private let delivered = Atomic<Int>(0)
    private let target = Atomic<Int>(0)
    private let reached = DispatchSemaphore(value: 0)
    private var objects: [NetworkReachability] = []  // touched by setup and teardown only
    private(set) var residentBytesPerTarget = 0

    init(size: Int) { self.size = size }

    /// Makes and starts every target, and waits for each one's first delivery.
    func start() {
        let before = BenchmarkNetwork.residentKiB()
        expect(size)
        for index in 0..<size {
            guard let object = try? NetworkReachability(address: "10.\(index >> 16 & 255).\(index >> 8 & 255).\(index & 255)")
            else { continue }
            object.startListening(onQueue: queue) { [self] _ in
                if delivered.add(1, ordering: .relaxed).newValue == target.load(ordering: .relaxed) { reached.signal() }
            }
            objects.append(object)
        }
        reached.wait()
        residentBytesPerTarget = max(BenchmarkNetwork.residentKiB() - before, 0) * 1024 / size
    }

    /// Applies a default-route change and returns once every target has heard it.
    func changeDefaultRoute(remove: Bool) {
        expect(size)
        BenchmarkNetwork.setDefaultRoute(present: !remove)
        reached.wait()
    }

    func stop() {
        for object in objects { object.stopListening() }
        objects.removeAll()
    }

    private func expect(_ count: Int) {
        target.store(delivered.load(ordering: .relaxed) + count, ordering: .relaxed)
    }
}
