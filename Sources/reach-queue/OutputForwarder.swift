#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityPOSIX
import ReachCommandLine

/// Writes commands' output on to the worker's stdout from a thread of its own, so that a destination nobody reads
/// never holds a command, its timeout or the worker's stop: what does not fit in ``limit`` bytes waiting to be written
/// is dropped there (the job's output in the file has it all the same).
final class OutputForwarder: Sendable {
    private struct Pending {
        var chunks: [[UInt8]] = []
        var bytes = 0
    }

    /// The most bytes waiting to be written: 1 MiB.
    static let limit = 1 << 20

    static let standardOutput = OutputForwarder(STDOUT_FILENO)

    private let descriptor: Int32
    private let pending = ConditionLock(Pending())

    private init(_ descriptor: Int32) {
        self.descriptor = descriptor
        _ = try? DedicatedThread(name: "reach-forward") { [self] in run() }.detach()
    }

    /// Queues `bytes` to be written, or drops them when ``limit`` bytes already wait.
    func forward(_ bytes: [UInt8]) {
        pending.withLock { pending in
            guard pending.bytes + bytes.count <= Self.limit else { return }
            pending.chunks.append(bytes)
            pending.bytes += bytes.count
        }
    }

    private func run() {
        while true {
            let chunks = pending.wait(until: { !$0.chunks.isEmpty }) { pending, _ in
                defer { (pending.chunks, pending.bytes) = ([], 0) }
                return pending.chunks
            }
            for chunk in chunks { Output.bytes(chunk[...], to: descriptor) }  // a failing one is given up
        }
    }
}
