#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityPOSIX
import Synchronization

/// The file beside a queue's database, `PATH.worker`, through which the processes that share the queue meet.
///
/// - The worker holds an exclusive `flock` on it while it runs: two workers would run one job at once. The kernel
///   releases the lock when the process ends, however it ends.
/// - A process that added or removed jobs opens and closes it for writing after its commit (``notify(database:)``),
///   and the worker hears that close through inotify (`IN_CLOSE_WRITE`): a job added by `reach queue add` or by
///   another program runs without the worker polling the database. A change to the database itself cannot be the
///   signal: a commit is written to the `-wal` file before the index other processes read is updated, so a worker
///   woken by the write could look before the job is visible.
final class WorkerSignal: Sendable {
    /// The locked descriptor; a process that inherits it holds the lock as long as it keeps it open.
    let lock: Int32
    private let inotify: Int32
    /// A pipe whose write end ``release()`` closes, which ends the thread's `poll`.
    private let stopReader: Int32
    private let stopWriter: Int32
    private let thread = Locked<DedicatedThread?>(nil)
    private let isClosed = Atomic(false)

    /// The signal file of the database at `database`.
    static func path(of database: String) -> String { database + ".worker" }

    /// Tells the database's worker, if one runs, that its jobs changed. A file that cannot be opened is left alone:
    /// the change is committed, and the worker sees it at its next look.
    static func notify(database: String) {
        let descriptor = open(path(of: database), O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o666)
        if descriptor >= 0 { close(descriptor) }
    }

    /// Becomes the worker of the database at `database`, and calls `changed` on a thread of its own after each change
    /// another process (or this one) signals, until ``release()``; changes close together are told once.
    ///
    /// - Throws: ``QueueError/anotherWorker(path:)`` while another process or queue object holds the lock;
    ///   ``QueueError/cannotOpen(path:reason:)`` when the file cannot be opened or watched.
    init(database: String, changed: @escaping @Sendable () -> Void) throws(QueueError) {
        let path = Self.path(of: database)
        // The mode of a file SQLite creates: whoever may write the database may signal its worker.
        let lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        guard lock >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            close(lock)
            throw .anotherWorker(path: database)
        }
        let inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        var stop: [Int32] = [-1, -1]
        if pipe(&stop) == 0 { for end in stop { _ = fcntl(end, F_SETFD, FD_CLOEXEC) } }
        guard inotify >= 0, stop[0] >= 0, inotify_add_watch(inotify, path, UInt32(IN_CLOSE_WRITE)) >= 0 else {
            let reason = String(cString: strerror(errno))
            for descriptor in [inotify, lock] + stop where descriptor >= 0 { close(descriptor) }
            throw .cannotOpen(path: path, reason: "cannot watch it: \(reason)")
        }
        (self.lock, self.inotify, stopReader, stopWriter) = (lock, inotify, stop[0], stop[1])
        do {
            let started = try DedicatedThread(name: "reach-queue") { [inotify, stopReader] in
                Self.follow(inotify, until: stopReader, changed: changed)
            }
            thread.withLock { $0 = started }
        } catch {
            release()
            throw .cannotOpen(path: path, reason: "\(error)")
        }
    }

    deinit { release() }

    /// Stops hearing changes and releases the lock; the second call does nothing.
    func release() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        close(stopWriter)
        thread.withLock { $0.take() }?.join()
        close(inotify)
        close(stopReader)
        close(lock)
    }

    /// Blocks in `poll` on the inotify descriptor and the stop pipe; reads every pending event before telling one
    /// change, so a burst of submissions is one look.
    private static func follow(_ inotify: Int32, until stopReader: Int32, changed: @Sendable () -> Void) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var watched = [
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: stopReader, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&watched, 2, -1) >= 0 else {
                if errno == EINTR { continue }
                return
            }
            if watched[1].revents != 0 { return }
            guard watched[0].revents & Int16(POLLIN) != 0 else { return }
            // Only the events' count matters: the one watch is the signal file.
            while buffer.withUnsafeMutableBytes({ read(inotify, $0.baseAddress, $0.count) }) > 0 {}
            changed()
        }
    }
}
