#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityQueue

// The durable queue's store in a process of its own, for the crash tests to kill at any moment (QueueCrashTests).
//
//   QueueCrashDrill submit PATH COUNT   submits COUNT jobs with the payload "job-N", printing each id once committed
//   QueueCrashDrill work PATH LOG       claims and completes every job in order, appending "ID" to LOG before each
//                                       completion (the job's effect), until none is left; then exits 0

func line(_ text: String, to descriptor: Int32) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}

func milliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    line("usage: QueueCrashDrill submit PATH COUNT | work PATH LOG", to: 2)
    exit(64)
}
do {
    let store = try JobStore(path: arguments[2])
    switch arguments[1] {
    case "submit":
        for index in 0..<(Int(arguments[3]) ?? 0) {
            let id = try store.submit(JobStore.Submission(kind: "drill", payload: Array("job-\(index)".utf8)), now: 0)
            line("\(id)", to: 1)
        }
    case "work":
        let log = open(arguments[3], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard log >= 0 else { throw QueueError.cannotOpen(path: arguments[3], reason: "errno \(errno)") }
        _ = try store.recoverInterruptedRuns()
        while let job = try store.claimNext(now: milliseconds(), where: { _ in true }) {
            line("\(job.id)", to: log)
            try store.complete(job.id)
        }
    default:
        exit(64)
    }
} catch {
    line("QueueCrashDrill: \(error)", to: 2)
    exit(1)
}
