#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import CProcess
import NetworkReachabilityPOSIX
import NetworkReachabilityQueue

/// A command's stdout and stderr: one pipe, as `nq` and `pueue` give theirs, so that the job's output in the file
/// (`reach queue log`) holds its writes to both in the order it made them. A thread of its own reads it and passes each
/// chunk on to the worker's stdout (``OutputForwarder``, which never blocks it) and to the job's output.
final class CommandOutput: Sendable {
    /// The pipe's write end, for the command's descriptors 1 and 2; closed here once it started.
    let writer: Int32
    private let reader: Int32
    /// A pipe whose write end ``finish()`` closes, which ends the reader's `poll` when what the command left behind
    /// still holds a write end.
    private let stopReader: Int32
    private let stopWriter: Int32
    private let done = Locked<(ended: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// How long the reader goes on after the command ended, for what it wrote last.
    static let drainTime: Int32 = 2000

    init(for job: DurableJob) throws {
        var pipes: [[Int32]] = []
        for _ in 0..<2 {
            var ends: [Int32] = [-1, -1]
            guard cprocess_pipe_cloexec(&ends) == 0 else {
                for end in pipes.joined() { close(end) }
                throw JobFailure("cannot make a pipe for its output: \(String(cString: strerror(errno)))")
            }
            pipes.append(ends)
        }
        (reader, writer) = (pipes[0][0], pipes[0][1])
        (stopReader, stopWriter) = (pipes[1][0], pipes[1][1])
        let thread = try? DedicatedThread(name: "job-output") { [self] in forward(to: job) }
        guard let thread else {
            for end in pipes.joined() { close(end) }
            throw JobFailure("cannot start its output's reader")
        }
        thread.detach()
    }

    /// The command started: the write end is its now.
    func started() { close(writer) }

    /// Waits until the command's output is read to its end, or for ``drainTime`` ms more when something it left
    /// holds the pipe open.
    func finish() async {
        await withCheckedContinuation { continuation in
            let ended = done.withLock { done in
                if !done.ended { done.waiters.append(continuation) }
                return done.ended
            }
            if ended { continuation.resume() }
        }
    }

    /// Forwards each chunk until the pipe ends, or until ``finish()`` was called ``drainTime`` ms ago.
    private func forward(to job: DurableJob) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var stopping = false
        while true {
            var watched = [
                pollfd(fd: reader, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopping ? -1 : stopReader, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&watched, 2, stopping ? Self.drainTime : -1)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { break }
            if watched[1].revents != 0 { stopping = true }
            guard watched[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            let chunk = Array(buffer[..<count])
            OutputForwarder.standardOutput.forward(chunk)
            job.write(chunk)
        }
        for descriptor in [reader, stopReader] { close(descriptor) }
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
