// The durable queue under load, for scripts/bench-queue: submissions per second (each committed before `submit`
// returns), runs per second of empty jobs, and, with a file that holds WAITING jobs whose conditions never hold here,
// the worker's resident memory and how long one runnable job then takes from `submit` to its handler.
//
//   QueueLoad submit-and-run DB COUNT      prints submissions/s and runs/s
//   QueueLoad fill DB                      one job that never runs here (it requires a cellular link); copied by the script
//   QueueLoad wait-behind DB               starts the worker on DB, then submits one runnable job, ten times
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
default:
    print("usage: QueueLoad submit-and-run|fill|wait-behind DB [COUNT]")
    exit(64)
}
