import Foundation
import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// The library's own background threads: they run what they are given, in order, and end once idle, so a
/// process that is told nothing new sleeps.
struct BackgroundThreadTests {
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [(Int, at: Int)] = []
        private var running = 0
        private(set) var mostAtOnce = 0
        func enter() {
            lock.withLock {
                running += 1; mostAtOnce = max(mostAtOnce, running)
            }
        }
        func leave(_ value: Int) {
            lock.withLock {
                running -= 1; stored.append((value, MonotonicClock.milliseconds()))
            }
        }
        func append(_ value: Int) { enter(); leave(value) }
        var values: [Int] { lock.withLock { stored.map(\.0) } }
        var times: [Int] { lock.withLock { stored.map(\.at) } }
    }

    private func waitUntil(_ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(10)
        while !condition() && Date() < deadline { usleep(2_000) }
    }

    @Test func aLaneRunsItsJobsInOrderOneAtATimeThenItsThreadEnds() {
        // Given a lane
        let lane = SerialLane(name: "test-lane")
        let log = Log()
        // When jobs are queued from many threads while earlier ones run
        lane.run {
            log.enter()
            usleep(20_000)
            log.leave(-1)
        }
        DispatchQueue.concurrentPerform(iterations: 4) { chunk in
            for index in 0..<25 {
                lane.run {
                    log.enter(); log.leave(chunk * 100 + index)
                }
            }
        }
        waitUntil { log.values.count == 101 }
        // Then every job ran once, none at the same time as another, each thread's in its order
        #expect(log.values.count == 101)
        #expect(log.mostAtOnce == 1)
        for chunk in 0..<4 {
            #expect(log.values.filter { $0 / 100 == chunk && $0 >= 0 } == (0..<25).map { chunk * 100 + $0 })
        }
        // And the lane's thread ends once nothing waits; a later job starts a new one
        waitUntil { !lane.isRunning }
        #expect(!lane.isRunning)
        lane.run { log.append(7) }
        waitUntil { log.values.count == 102 }
        #expect(log.values.last == 7)
    }

    @Test func aTimerRunsEachActionOnceItsDeadlineHasPassedInDeadlineOrder() {
        // Given a timer and three actions scheduled out of order
        let timer = DeadlineTimer(name: "test-timer")
        let log = Log()
        let start = MonotonicClock.milliseconds()
        for delay in [60, 20, 40] { timer.schedule(after: .milliseconds(delay)) { log.append(delay) } }
        // When they are due
        waitUntil { log.values.count == 3 }
        // Then they ran by deadline, none early, and the thread ended
        #expect(log.values == [20, 40, 60])
        for (delay, time) in zip(log.values, log.times) { #expect(time - start >= delay) }
        waitUntil { !timer.isRunning }
        #expect(!timer.isRunning)
    }

    @Test func aCancelledActionNeverRunsAndCancellingTheLastEndsTheThreadAtOnce() {
        // Given a timer with two actions, one far off
        let timer = DeadlineTimer(name: "far-timer")
        let log = Log()
        let far = timer.schedule(after: .seconds(Int64.max)) { log.append(1) }  // the longest delay there is
        let near = timer.schedule(after: .milliseconds(30)) { log.append(2) }
        // When the near one is cancelled, and then the far one
        timer.cancel(near)
        usleep(80_000)
        // (the thread sleeps toward the far deadline: it neither overflows into the past nor spins)
        let ticks = Self.cpuTicks(ofThreadNamed: "far-timer")
        usleep(100_000)
        let spent = Self.cpuTicks(ofThreadNamed: "far-timer").map { $0 - (ticks ?? 0) }
        #expect(spent == 0, "the timer's thread ran \(spent.map(String.init) ?? "-") clock ticks in 0.1 s")
        #expect(timer.isRunning)
        timer.cancel(far)
        // Then neither runs, and the thread ends without waiting for the far deadline
        waitUntil { !timer.isRunning }
        #expect(!timer.isRunning)
        #expect(log.values.isEmpty)
    }

    /// The user and system CPU time, in clock ticks, of this process's thread called `name`.
    private static func cpuTicks(ofThreadNamed name: String) -> Int? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for task in tasks where SmallFile.text("/proc/self/task/\(task)/comm", limit: 64)?.hasPrefix(name) == true {
            // After the name in parentheses: state is field 3, utime 14 and stime 15
            guard let stat = SmallFile.text("/proc/self/task/\(task)/stat", limit: 4096), let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { continue }
            return user + system
        }
        return nil
    }

    @Test func anEarlierDeadlineScheduledWhileTheThreadSleepsIsNotDelayed() {
        // Given a timer sleeping toward a deadline an hour off
        let timer = DeadlineTimer(name: "test-timer")
        let log = Log()
        let far = timer.schedule(after: .seconds(3600)) { log.append(1) }
        usleep(20_000)
        // When a near action is scheduled
        timer.schedule(after: .milliseconds(10)) { log.append(2) }
        // Then it runs in time, and the far one still waits
        waitUntil { log.values == [2] }
        #expect(log.values == [2])
        timer.cancel(far)
        waitUntil { !timer.isRunning }
        #expect(!timer.isRunning)
    }
}
