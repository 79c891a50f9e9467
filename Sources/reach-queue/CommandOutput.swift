#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import CProcess
import NetworkReachabilityPOSIX
import NetworkReachabilityQueue

/// A command's stdout and stderr: two pipes read by a thread of their own, each chunk passed on to the worker's own
/// stdout or stderr (``OutputForwarder``, which never blocks it) and to the job's output in the file (`reach queue
/// log`), in the order read: writes to the two close together may be read out of order.
final class CommandOutput: Sendable {
    /// The pipes' write ends, for the command's descriptors 1 and 2; closed here once it started.
    let stdoutWriter: Int32
    let stderrWriter: Int32
    private let readers: [Int32]
    /// A pipe whose write end ``finish()`` closes, which ends the reader's `poll` when what the command left behind
    /// still holds a write end.
    private let stopReader: Int32
    private let stopWriter: Int32
    private let done = Locked<(ended: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// How long the reader goes on after the command ended, for what it wrote last.
    static let drainTime: Int32 = 2000

    init(for job: DurableJob) throws {
        var pipes: [[Int32]] = []
        for _ in 0..<3 {
            var ends: [Int32] = [-1, -1]
            guard cprocess_pipe_cloexec(&ends) == 0 else {
                for end in pipes.joined() { close(end) }
                throw JobFailure("cannot make a pipe for its output: \(String(cString: strerror(errno)))")
            }
            pipes.append(ends)
        }
        (stdoutWriter, stderrWriter) = (pipes[0][1], pipes[1][1])
        readers = [pipes[0][0], pipes[1][0]]
        (stopReader, stopWriter) = (pipes[2][0], pipes[2][1])
        let thread = try? DedicatedThread(name: "reach-job-output") { [self] in forward(to: job) }
        guard let thread else {
            for end in pipes.joined() { close(end) }
            throw JobFailure("cannot start its output's reader")
        }
        thread.detach()
    }

    /// The command started: the write ends are its now.
    func started() {
        close(stdoutWriter)
        close(stderrWriter)
    }

    /// Waits until the command's output is read to its end, or for ``drainTime`` ms more when something it left
    /// holds a pipe open.
    func finish() async {
        await withCheckedContinuation { continuation in
            let ended = done.withLock { done in
                if !done.ended { done.waiters.append(continuation) }
                return done.ended
            }
            if ended { continuation.resume() }
        }
    }

    /// Forwards each chunk until both pipes end, or until ``finish()`` was called ``drainTime`` ms ago.
    private func forward(to job: DurableJob) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var open = readers
        var stopping = false
        while !open.isEmpty {
            var watched = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            watched.append(pollfd(fd: stopping ? -1 : stopReader, events: Int16(POLLIN), revents: 0))
            let ready = poll(&watched, nfds_t(watched.count), stopping ? Self.drainTime : -1)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { break }
            if watched.last!.revents != 0 { stopping = true }
            for entry in watched.dropLast() where entry.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    open.removeAll { $0 == entry.fd }
                    continue
                }
                let chunk = Array(buffer[..<count])
                (entry.fd == readers[0] ? OutputForwarder.standardOutput : OutputForwarder.standardError).forward(chunk)
                job.write(chunk)
            }
        }
        for descriptor in readers + [stopReader] { close(descriptor) }
        let waiters = done.withLock { done in
            done.ended = true
            defer { done.waiters = [] }
            return done.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Ends the reader after ``drainTime`` once the command ended (its leftovers are ended by then).
    func commandEnded() { close(stopWriter) }
}
