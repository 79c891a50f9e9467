/// Why a ``DurableWorkQueue`` refused or failed: each names the database file, or the bound that was reached.
public enum QueueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be opened or created (its directory is missing, or it may not be read or written).
    case cannotOpen(path: String, reason: String)
    /// The file exists and is not an SQLite database, or not this queue's: it is left as it is.
    case notADatabase(path: String)
    /// The file, its directory or a file beside it is not safe to use: a link, not a regular file, another user's,
    /// or writable by others. Nothing was read from it or written to it.
    case unsafe(path: String, reason: String)
    /// The file is this queue's, and damaged: nothing is written to it. `reason` says how to recover it.
    case damaged(path: String, reason: String)
    /// A read or write of an open database failed (a full disk, a corrupt page).
    case storage(path: String, reason: String)
    /// The queue holds its most jobs, or its most payload bytes: the job was not added.
    case full(reason: String)
    /// Another worker runs this file's jobs (it holds the lock beside the file): two would run one job at once.
    case anotherWorker(path: String)
    /// The job is not in the queue (done, or removed).
    case noSuchJob(Int64)
    /// The job cannot be submitted as it is: its payload does not encode, its target is no target, or it asks for
    /// what this queue cannot tell.
    case invalidJob(reason: String)

    /// One line that names the file or the bound.
    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the queue '\(path)': \(reason)"
        case .notADatabase(let path): "'\(path)' is not a queue database; it was left as it is"
        case .unsafe(let path, let reason): "refusing the queue '\(path)': \(reason)"
        case .damaged(let path, let reason): "the queue '\(path)' is damaged: \(reason)"
        case .storage(let path, let reason): "the queue '\(path)' failed: \(reason)"
        case .full(let reason): "the queue is full: \(reason)"
        case .anotherWorker(let path): "another process runs the jobs of '\(path)'"
        case .noSuchJob(let id): "no job \(id) in the queue"
        case .invalidJob(let reason): "the job cannot be queued: \(reason)"
        }
    }
}
