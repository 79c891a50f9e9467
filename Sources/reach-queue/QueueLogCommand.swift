import ArgumentParser
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityQueue
import ReachCommandLine

/// `reach queue log`: a job's output, as its command wrote it.
struct QueueLogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Print what a job's last attempt wrote to stdout and stderr (its last 64 KiB), byte for byte.",
        discussion: """
            With --follow, goes on printing what it writes until the job is done, has failed for good, or is \
            removed; an attempt that begins again is printed from its start. Exits 1 when the file holds no such job.
            """
    )

    @Argument(help: "The queue's SQLite file.", transform: QueueFilePath.parser)
    var database: String

    @Argument(help: "The job's id, as `add` printed it.", transform: JobID.init)
    var id: JobID

    @Flag(help: "Print what it writes next, until it ends.")
    var follow = false

    func run() throws {
        let store = try QueueFile.open(database, readOnly: true)
        let watch = follow ? try QueueChangeWatch(path: database) : nil
        var shown: Int64?  // bytes of the attempt's output printed, counted from its start
        while true {
            guard let job = try store.job(id.value), let output = try store.output(of: id.value) else {
                if shown == nil {
                    Output.say("\(QueueError.noSuchJob(id.value))")
                    throw ExitCode(1)
                }
                return
            }
            let total = output.dropped + Int64(output.bytes.count)
            if shown == nil || total < shown! {  // the first look, or a new attempt began
                if output.dropped > 0 {
                    Output.say("the first \(output.dropped) bytes were dropped: a job keeps its last 64 KiB")
                }
                shown = output.dropped
            }
            if shown! < output.dropped {
                Output.say("\(output.dropped - shown!) bytes were written and dropped before they could be shown")
                shown = output.dropped
            }
            let start = Int(shown! - output.dropped)
            if start < output.bytes.count && !Output.bytes(output.bytes[start...], to: STDOUT_FILENO) {
                Output.say("cannot write the output: \(String(cString: strerror(errno)))")
                throw ExitCode(74)
            }
            shown = total
            guard let watch, job.state != .done, job.state != .failed else { return }
            watch.waitForLook()
        }
    }
}
