#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityPOSIX
import Synchronization

/// How the processes that share a queue meet: the worker's lock on the database file, and `PATH.worker`, through
/// which it hears of jobs other processes added.
///
/// - The worker holds a lock on the database file itself (``QueueFileHandle/lock()``) while it runs: two workers would
///   run one job at once. The kernel releases it when the process ends, however it ends, unless a command it started
///   still holds the descriptor.
/// - A process that added or removed jobs opens and closes `PATH.worker` for writing after its commit
///   (``notify(database:)``), and the worker hears that close through inotify (`IN_CLOSE_WRITE`): a job added by
///   `reach queue add` or by another program runs without the worker polling the database. A change to the database
///   itself cannot be the signal: a commit is written to the `-wal` file before the index other processes read is
///   updated, so a worker woken by the write could look before the job is visible. Only the worker makes the file,
///   with the database's owner and mode; a submitter never creates it and never follows a link to it.
final class WorkerSignal: Sendable {
    /// The database file, whose lock this holds.
    let file: QueueFileHandle
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
        let descriptor = open(path(of: database), O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        if descriptor >= 0 { close(descriptor) }
    }

    /// Becomes the worker of the database `file`, and calls `changed` on a thread of its own after each change
    /// another process (or this one) signals, until ``release()``; changes close together are told once.
    ///
    /// - Throws: ``QueueError/anotherWorker(path:)`` while another process or queue object holds the lock;
    ///   ``QueueError/unsafe(path:reason:)`` for a signal file that is not the worker's to use;
    ///   ``QueueError/cannotOpen(path:reason:)`` when it cannot be made or watched.
    init(file: QueueFileHandle, changed: @escaping @Sendable () -> Void) throws(QueueError) {
        guard file.lock() else { throw .anotherWorker(path: file.path) }
        self.file = file
        let path = Self.path(of: file.path)
        do {
            try Self.makeSignalFile(path, beside: file)
        } catch {
            file.unlock()
            throw error
        }
        let inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        var stop: [Int32] = [-1, -1]
        if pipe(&stop) == 0 { for end in stop { _ = fcntl(end, F_SETFD, FD_CLOEXEC) } }
        guard inotify >= 0, stop[0] >= 0, inotify_add_watch(inotify, path, UInt32(IN_CLOSE_WRITE | IN_DONT_FOLLOW)) >= 0
        else {
            let reason = String(cString: strerror(errno))
            for descriptor in [inotify] + stop where descriptor >= 0 { close(descriptor) }
            file.unlock()
            throw .cannotOpen(path: path, reason: "cannot watch it: \(reason)")
        }
        (self.inotify, stopReader, stopWriter) = (inotify, stop[0], stop[1])
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

    /// Makes the signal file with the database's mode (those who may add jobs may signal), or checks the one there:
    /// one another user left is replaced.
    private static func makeSignalFile(_ path: String, beside file: QueueFileHandle) throws(QueueError) {
        var status = stat()
        if lstat(path, &status) == 0 {
            let isRegular = status.st_mode & S_IFMT == S_IFREG && status.st_nlink == 1
            if isRegular && file.mayWrite(owner: status.st_uid, group: status.st_gid) {
                try file.checkBeside(path)
                return
            }
            guard unlink(path) == 0 else {
                throw .unsafe(path: file.path, reason: "\(path) is not the worker's, and cannot be removed")
            }
        }
        var database = stat()
        _ = fstat(file.descriptor, &database)
        let made = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard made >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        _ = fchmod(made, database.st_mode & 0o660)
        close(made)
    }

    deinit { release() }

    /// Stops hearing changes and gives the lock back; the second call does nothing.
    func release() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        close(stopWriter)
        thread.withLock { $0.take() }?.join()
        close(inotify)
        close(stopReader)
        file.unlock()
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
