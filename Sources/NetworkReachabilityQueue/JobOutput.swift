import Logging
import NetworkReachabilityCore
import NetworkReachabilityPOSIX

/// What one run of a job writes (``DurableJob/write(_:)-(String)``), gathered and committed to the job's output in the file:
/// at 16 KiB, 1 s after the first byte not yet committed, and when the run ends, before its end is recorded, so that
/// whoever sees the job end sees all its output. Bytes the file could not take (a full disk) are counted, and the
/// next commit that succeeds puts a line in their place that says how many and why, or, when none did, the run's end
/// (``finish()``); the first loss is logged.
final class JobOutput: Sendable {
    private struct Pending {
        var bytes: [UInt8] = []
        var flush: Task<Void, Never>?
    }

    private struct Loss {
        var bytes = 0
        var reason = ""
        /// Whether the output kept so far is empty or ends a line, so that the mark begins one without a blank.
        var atLineStart = true

        /// The line that stands where ``bytes`` bytes of output were lost.
        var mark: String {
            (atLineStart ? "" : "\n") + "[reach: \(bytes) bytes of output are not kept here: \(reason)]\n"
        }
    }

    /// Committed at once from this many bytes.
    static let batchBytes = 16 * 1024
    /// Committed at the latest this long after the first byte not committed.
    static let batchDelay = Duration.seconds(1)

    private let id: Int64
    private let store: JobStore
    private let logger: Logger
    private let pending = Locked(Pending())
    /// One commit at a time, in order; what the file could not take since the last commit that succeeded.
    private let committing = Locked(Loss())

    init(job id: Int64, store: JobStore, logger: Logger) {
        self.id = id
        self.store = store
        self.logger = logger
    }

    func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let full = pending.withLock { pending -> Bool in
            pending.bytes += bytes
            if pending.bytes.count < Self.batchBytes && pending.flush == nil {
                pending.flush = Task { [weak self] in
                    guard (try? await Task.sleep(for: Self.batchDelay)) != nil else { return }
                    self?.commit()
                }
            }
            return pending.bytes.count >= Self.batchBytes
        }
        if full { commit() }
    }

    /// Commits what is pending, at the run's end: the line that says what the file could not take, when that is left
    /// to be recorded with the end.
    func finish() -> String? {
        commit()
        return committing.withLock { loss in loss.bytes == 0 ? nil : loss.mark }
    }

    /// Commits what is pending.
    func commit() {
        committing.withLock { loss in
            let bytes = pending.withLock { pending in
                pending.flush?.cancel()
                pending.flush = nil
                defer { pending.bytes = [] }
                return pending.bytes
            }
            guard !bytes.isEmpty else { return }
            let mark = loss.bytes == 0 ? [] : Array(loss.mark.utf8)
            do {
                try store.appendOutput(mark + bytes, to: id)
                loss = Loss(atLineStart: bytes.last == UInt8(ascii: "\n"))
            } catch {
                if loss.bytes == 0 {
                    loss.reason = if case .full(let reason)? = error as? QueueError { reason } else { "\(error)" }
                    logger.warning("job \(id): its output is not kept while the file cannot take it: \(loss.reason)")
                }
                loss.bytes += bytes.count
            }
        }
    }
}
