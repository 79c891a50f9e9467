import NetworkReachabilityCore
import NetworkReachabilityPOSIX

/// What one run of a job writes (``DurableJob/write(_:)-(String)``), gathered and committed to the job's output in the file:
/// at 16 KiB, 1 s after the first byte not yet committed, and when the run ends, before its end is recorded, so that
/// whoever sees the job end sees all its output.
final class JobOutput: Sendable {
    private struct Pending {
        var bytes: [UInt8] = []
        var flush: Task<Void, Never>?
    }

    /// Committed at once from this many bytes.
    static let batchBytes = 16 * 1024
    /// Committed at the latest this long after the first byte not committed.
    static let batchDelay = Duration.seconds(1)

    private let id: Int64
    private let store: JobStore
    private let pending = Locked(Pending())
    /// One commit at a time, in order.
    private let committing = Locked(())

    init(job id: Int64, store: JobStore) {
        self.id = id
        self.store = store
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

    /// Commits what is pending; the run's end calls it last.
    func commit() {
        committing.withLock { _ in
            let bytes = pending.withLock { pending in
                pending.flush?.cancel()
                pending.flush = nil
                defer { pending.bytes = [] }
                return pending.bytes
            }
            if !bytes.isEmpty { store.appendOutput(bytes, to: id) }
        }
    }
}
