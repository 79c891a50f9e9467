import ArgumentParser
import NetworkReachabilityQueue
import ReachCommandLine

/// `reach queue wait`: blocks until a job is done or failed, and exits as it did.
struct QueueWaitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until a job is done or has failed for good, and exit with its status.",
        discussion: """
            Exits 0 when it is done; when it failed, with its command's exit status (128+N after signal N, 124 \
            after its --timeout), or 1 when it ran none (it expired, or the job it followed failed). Exits 1 when \
            the file holds no such job, or it is removed while this waits; 66 when there is no file. Waits as long \
            as it takes: the worker need not run yet.
            """
    )

    @Argument(help: "The queue's SQLite file.", transform: QueueFilePath.parser)
    var database: String

    @Argument(help: "The job's id, as `add` printed it.", transform: JobID.init)
    var id: JobID

    func run() throws {
        let store = try QueueFile.open(database, readOnly: true)
        let watch = try QueueChangeWatch(path: database)
        while true {
            guard let job = try store.job(id.value) else {
                Output.say("\(QueueError.noSuchJob(id.value))")
                throw ExitCode(1)
            }
            switch job.state {
            case .done: return
            case .failed:
                Output.say("job \(job.id) failed: \(job.lastError ?? "no reason recorded")")
                throw ExitCode(job.exitStatus.map { $0 == 0 ? 1 : $0 } ?? 1)
            default: break
            }
            watch.waitForLook()
        }
    }
}
