import Dispatch
import Testing

/// Runs each test of a suite (or one test) on a thread of its own instead of Swift Testing's cooperative pool, which
/// has as many threads as cores (two here): a test that blocks there, waiting for a bus, a daemon or a name's owner,
/// holds a thread every other suite needs, and a failing set-up that waits out its timeout starves unrelated suites
/// past their time limits.
///
/// The test's task prefers a serial dispatch queue of its own as its executor (SE-0417), so its synchronous code and
/// every resumption after an `await` run there; a serial queue takes its thread from Dispatch's overcommit pool,
/// which starts another thread rather than wait for a busy one. Child tasks inherit the preference and run one at a
/// time, as a synchronous test's steps do. Swift Testing sets no limit on how many such tests run at once: a suite's
/// tests all start together, as its asynchronous tests do.
///
/// Set-ups that block check that they run under it (``OwnThreadTrait/requireOffThePool(_:)``).
public struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite it marks.
    public var isRecursive: Bool { true }

    /// Runs a test case with its own queue as its task's preferred executor.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }  // the suite itself: its tests get their own
        let executor = QueueTaskExecutor(label: test.name)
        try await withTaskExecutorPreference(executor) { try await function() }
    }

    /// Marks the queues of ``QueueTaskExecutor``, by which a blocking set-up knows it runs on one.
    static let ownQueue = DispatchSpecificKey<Bool>()

    /// Throws when the caller is a Swift task that does not run on a test's own thread (so it holds a thread of the
    /// cooperative pool): a set-up that blocks (a bus, a daemon, a service) calls it first, so a suite that lacks
    /// ``Trait/ownThread`` fails at once, naming the fix, instead of starving the others. A thread of the test's
    /// own making is not a task, and may block.
    public static func requireOffThePool(_ setUp: String) throws {
        let inTask = withUnsafeCurrentTask { $0 != nil }
        guard inTask, DispatchQueue.getSpecific(key: ownQueue) != true else { return }
        throw CommandError(
            command: [setUp],
            result: CommandResult(
                status: 1, standardOutput: "",
                standardError: "would block a thread of Swift Testing's cooperative pool: mark the suite .ownThread"))
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Runs each test on a thread of its own, off Swift Testing's cooperative pool (``OwnThreadTrait``).
    public static var ownThread: Self { Self() }
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
