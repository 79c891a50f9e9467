import Dispatch
import Foundation
import Testing

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

    /// Applies to every test of a suite it marks.
    public var isRecursive: Bool { true }

    /// How many marked tests run at once: two per core (at least four). Most of a marked test's time is a wait on
    /// another process, but one holds its lane across its awaits, where it would have left the pool's thread: with
    /// two lanes on two cores the plain suite took 288 s against the pool's 150 s, with four 210 s; with no bound, 135
    /// s and six tests past their timing bounds.
    static let lanes = Lanes(width: 2 * max(2, ProcessInfo.processInfo.activeProcessorCount))

    /// Runs a test case on its own queue once it has a lane, within ``timeLimit``.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }  // the suite itself: its tests get their own
        // A test marked as well as its suite: one lane, one queue, the test's limit
        if DispatchQueue.getSpecific(key: Self.ownQueue) == true { return try await limited(function) }
        await Self.lanes.enter()
        defer { Self.lanes.leave() }
        try await withTaskExecutorPreference(QueueTaskExecutor(label: test.name)) { try await limited(function) }
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
    /// runs longer than `timeLimit` once it has its lane (``OwnThreadTrait``).
    public static func ownThread(timeLimit: Duration) -> Self { Self(timeLimit: timeLimit) }
}

/// A first-come, first-served gate of ``width`` places, entered by suspending.
final class Lanes: @unchecked Sendable {
    private let lock = NSLock()
    private var free: Int  // guarded by `lock`
    private var waiting: [CheckedContinuation<Void, Never>] = []  // guarded by `lock`

    init(width: Int) { free = width }

    /// Takes a place, suspending until one is free.
    func enter() async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock {
                guard free > 0 else {
                    waiting.append(continuation)
                    return false
                }
                free -= 1
                return true
            }
            if now { continuation.resume() }
        }
    }

    /// Gives the place back, to the longest waiter if there is one.
    func leave() {
        let next = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard !waiting.isEmpty else {
                free += 1
                return nil
            }
            return waiting.removeFirst()
        }
        next?.resume()
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
