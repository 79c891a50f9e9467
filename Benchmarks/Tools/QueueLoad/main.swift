// The durable queue under load, for scripts/bench-queue: submissions per second (each committed before `submit`
// returns), runs per second of empty jobs, and, with a file that holds WAITING jobs whose conditions never hold here,
// the worker's resident memory and how long one runnable job then takes from `submit` to its handler.
//
//   QueueLoad submit-and-run DB COUNT      prints submissions/s and runs/s
//   QueueLoad fill DB                      one job that never runs here (it requires a cellular link); copied by the script
//   QueueLoad wait-behind DB               starts the worker on DB, then submits one runnable job, ten times
//   QueueLoad fill-runnable DB             one runnable job; copied by the script into a backlog
//   QueueLoad drain DB                     runs every job in DB; prints the wall time and the CPU time per job
import Foundation
import NetworkReachabilityKit
import NetworkReachabilityQueue

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: QueueLoad submit-and-run|fill|wait-behind DB [COUNT]")
    exit(64)
}
let path = arguments[2]
/// Loopback is reachable without a network: the runnable jobs' target.
let runnable = JobConditions(target: "127.0.0.1")

/// Counts handler runs and wakes whoever waits for a number of them.
final class Runs: @unchecked Sendable {
    private let condition = NSCondition()
    private var count = 0
    func add() {
        condition.lock()
        count += 1
        condition.broadcast()
        condition.unlock()
    }
    func wait(for target: Int) {
        condition.lock()
        while count < target { condition.wait() }
        condition.unlock()
    }
}

func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// User and system CPU time of the process so far.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func residentKiB() -> (current: Int, peak: Int) {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    func field(_ name: String) -> Int {
        status.split(separator: "\n").first { $0.hasPrefix(name) }.flatMap { $0.split(separator: " ").dropFirst().first }
            .flatMap { Int($0) } ?? 0
    }
    return (field("VmRSS:"), field("VmHWM:"))
}

switch arguments[1] {
case "submit-and-run":
    let count = arguments.count > 3 ? Int(arguments[3]) ?? 1000 : 1000
    let queue = try DurableWorkQueue(path: path)
    let runs = Runs()
    queue.register("empty") { _ in runs.add() }
    let submitting = ContinuousClock.now
    for index in 0..<count { try queue.submit("empty", payload: index, conditions: runnable) }
    let submitted = seconds(since: submitting)
    let running = ContinuousClock.now
    try queue.start()
    runs.wait(for: count)
    let ran = seconds(since: running)
    await queue.stop()
    print(String(format: "submissions: %d in %.2f s, %.0f/s", count, submitted, Double(count) / submitted))
    print(String(format: "runs: %d in %.2f s, %.0f/s", count, ran, Double(count) / ran))
case "fill":
    let queue = try DurableWorkQueue(path: path)
    try queue.submit("never", payload: 0, conditions: JobConditions(requiredType: .cellular))
case "wait-behind":
    var limits = QueueLimits()
    limits.maximumJobs = 1_000_000
    let queue = try DurableWorkQueue(path: path, limits: limits)
    let runs = Runs()
    queue.register("empty") { _ in runs.add() }
    let starting = ContinuousClock.now
    try queue.start()
    for round in 1...10 {
        let submitting = ContinuousClock.now
        try queue.submit("empty", payload: round, conditions: runnable)
        runs.wait(for: round)
        print(String(format: "round %d: submit to run %.1f ms", round, seconds(since: submitting) * 1000))
    }
    let memory = residentKiB()
    print(
        String(
            format: "started and ran 10 in %.2f s; resident %.1f MiB, peak %.1f MiB", seconds(since: starting),
            Double(memory.current) / 1024, Double(memory.peak) / 1024))
    await queue.stop()
case "fill-runnable":
    let queue = try DurableWorkQueue(path: path)
    try queue.submit("empty", payload: 0, conditions: runnable)
case "drain":
    var limits = QueueLimits()
    limits.maximumJobs = 1_000_000
    let queue = try DurableWorkQueue(path: path, limits: limits)
    let runs = Runs()
    queue.register("empty") { _ in runs.add() }
    let count = Int(arguments.count > 3 ? arguments[3] : "") ?? 0
    let starting = ContinuousClock.now
    let cpuBefore = cpuSeconds()
    try queue.start()
    var last = ContinuousClock.now
    for step in 1...10 {
        runs.wait(for: count * step / 10)
        let now = ContinuousClock.now
        print(String(format: "  jobs %d–%d: %.0f /s", count * (step - 1) / 10 + 1, count * step / 10,
            Double(count / 10) / seconds(since: last)))
        last = now
    }
    let wall = seconds(since: starting)
    let cpu = cpuSeconds() - cpuBefore
    await queue.stop()
    print(String(format: "drained %d jobs in %.1f s (%.0f /s); CPU %.2f ms per job", count, wall, Double(count) / wall,
        cpu * 1000 / Double(count)))
default:
    print("usage: QueueLoad submit-and-run|fill|wait-behind DB [COUNT]")
    exit(64)
}
