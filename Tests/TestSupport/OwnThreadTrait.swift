import Dispatch
import Foundation
public import Testing

/// Runs each test of a suite (or one test) on a thread of its own instead of Swift Testing's cooperative pool, which
/// has as many threads as cores (two here). A test that blocks there (on a process, a bus, a daemon, a line of
/// output) holds a thread every other test needs: the pool runs jobs in the order they come, so an asynchronous test
/// resumed after an `await` waits behind every blocking test queued before it, and a slow or failing blocking suite
/// made unrelated suites miss their time limits.
///
/// A marked test first takes one of ``lanes`` (a suspension, which holds no thread), so that a bounded number of
/// blocking tests run at once; then its task prefers a serial dispatch queue of its own as its executor
/// (SE-0417), so its synchronous code and every resumption after an `await` run there. A serial queue takes its thread
/// from Dispatch's overcommit pool, which starts another thread rather than wait for a busy one. Child tasks inherit
/// the preference and run one at a time, as a synchronous test's steps do.
///
/// Swift Testing's `.timeLimit` would count the wait for a lane: a marked suite gives its limit here instead
/// (``Trait/ownThread(timeLimit:)``), counted from when the test has its lane. As with Swift Testing's own, a test past
/// its limit is recorded as failed at once and ends when its body ends.
///
/// Blocking helpers check that they run under it (``requireOffThePool(_:)``).
public struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    /// How long each test may run once it has its lane, if limited.
    public var timeLimit: Duration?
    /// Whether the test takes every lane: for a test whose bounds are timings that other blocking tests would skew.
    public var isAlone = false

    /// Applies to every test of a suite it marks.
    public var isRecursive: Bool { true }

    /// How many marked tests run at once: two per core (at least four). Most of a marked test's time is a wait on
    /// another process, but one holds its lane across its awaits, where it would have left the pool's thread: with
    /// two lanes on two cores the plain suite took 288 s against the pool's 150 s, with four 210 s; with no bound, 135
    /// s and six tests past their timing bounds.
    static let lanes = Lanes(width: 2 * max(2, ProcessInfo.processInfo.activeProcessorCount))

    /// Runs a test case on its own queue once it has its lanes, within its time limit. A test marked as well as its
    /// suite runs once, with one queue: alone if either mark says so, within the shorter limit.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }  // the suite itself: its tests get their own
        guard DispatchQueue.getSpecific(key: Self.ownQueue) != true else { return try await function() }
        let marks = test.traits.compactMap { $0 as? OwnThreadTrait }
        let merged = OwnThreadTrait(
            timeLimit: marks.compactMap(\.timeLimit).min(), isAlone: marks.contains(where: \.isAlone))
        let lanes = merged.isAlone ? Self.lanes.width : 1
        await Self.lanes.enter(taking: lanes)
        defer { Self.lanes.leave(giving: lanes) }
        try await withTaskExecutorPreference(QueueTaskExecutor(label: test.name)) { try await merged.limited(function) }
    }

    /// Runs `function`, on the task's preferred executor, recording an issue if it runs longer than ``timeLimit``.
    private func limited(_ function: @Sendable () async throws -> Void) async throws {
        guard let timeLimit else { return try await function() }
        try await withoutActuallyEscaping(function) { body in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await body()
                    return true
                }
                // The timer runs on the global executor: the test's own queue may be blocked
                group.addTask(executorPreference: globalConcurrentExecutor) {
                    try? await Task.sleep(for: timeLimit)
                    return false
                }
                if try await group.next() == false {
                    Issue.record("Time limit was exceeded: \(timeLimit) after the test had its lane")
                }
                group.cancelAll()
                while try await group.next() != nil {}
            }
        }
    }

    /// Marks the queues of ``QueueTaskExecutor``, by which a blocking helper knows it runs on one.
    static let ownQueue = DispatchSpecificKey<Bool>()

    /// Records an issue when the caller is a Swift task that does not run on a test's own thread (so it holds a thread
    /// of the cooperative pool): every helper that blocks (a command, a bus, a daemon, a wait for a line) calls it
    /// first, so a suite that lacks ``Trait/ownThread`` fails, naming the fix, instead of starving the others. A thread
    /// of the test's own making is not a task, and may block.
    public static func requireOffThePool(_ helper: String) {
        guard isOnThePool else { return }
        Issue.record("\(helper) would block a thread of Swift Testing's cooperative pool: mark the suite .ownThread")
    }

    /// Whether the caller is a Swift task running on the cooperative pool rather than on a test's own queue.
    public static var isOnThePool: Bool {
        withUnsafeCurrentTask { $0 != nil } && DispatchQueue.getSpecific(key: ownQueue) != true
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Runs each test on a thread of its own, off Swift Testing's cooperative pool (``OwnThreadTrait``).
    public static var ownThread: Self { Self() }

    /// Runs each test on a thread of its own, off Swift Testing's cooperative pool, and records it as failed when it
    /// runs longer than `timeLimit` once it has its lane; `alone`, it takes every lane (``OwnThreadTrait``).
    public static func ownThread(timeLimit: Duration? = nil, alone: Bool = false) -> Self {
        Self(timeLimit: timeLimit, isAlone: alone)
    }
}

/// A first-come, first-served gate of ``width`` places, entered by suspending: one who needs more places than are free
/// waits, and so does everyone after, so that a test that takes them all is not passed by a stream of others.
final class Lanes: @unchecked Sendable {
    /// How many places there are.
    let width: Int
    private let lock = NSLock()
    private var free: Int  // guarded by `lock`
    private var waiting: [(places: Int, continuation: CheckedContinuation<Void, Never>)] = []  // guarded by `lock`

    init(width: Int) {
        self.width = width
        free = width
    }

    /// Takes `places` places (at most ``width``), suspending until they are free and everyone before has had theirs.
    func enter(taking places: Int) async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock {
                guard waiting.isEmpty, free >= places else {
                    waiting.append((places, continuation))
                    return false
                }
                free -= places
                return true
            }
            if now { continuation.resume() }
        }
    }

    /// How many wait for places now.
    var queued: Int { lock.withLock { waiting.count } }

    /// Gives `places` places back, to those waiting in order while they fit.
    func leave(giving places: Int) {
        let admitted = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            free += places
            var admitted: [CheckedContinuation<Void, Never>] = []
            while let first = waiting.first, first.places <= free {
                free -= first.places
                admitted.append(waiting.removeFirst().continuation)
            }
            return admitted
        }
        for continuation in admitted { continuation.resume() }
    }
}

/// A task executor that runs its jobs on one serial dispatch queue.
private final class QueueTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: OwnThreadTrait.ownQueue, value: true)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
