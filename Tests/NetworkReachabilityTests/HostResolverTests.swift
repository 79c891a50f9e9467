import Dispatch
import Foundation
import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// The resolver's promises, with a fake blocking lookup in place of getaddrinfo.
struct HostResolverTests {
    /// A lookup that blocks until released, counting calls and how many run at once.
    final class FakeLookup: @unchecked Sendable {
        private let lock = NSLock()
        private let gate = DispatchSemaphore(value: 0)
        private(set) var calls = 0
        private(set) var running = 0
        private(set) var mostAtOnce = 0

        func lookUp(_ name: String) -> Result<[IPAddress], ResolutionFailure> {
            lock.withLock {
                calls += 1
                running += 1
                mostAtOnce = max(mostAtOnce, running)
            }
            gate.wait()
            lock.withLock { running -= 1 }
            return .success([IPAddress(bytes: [192, 0, 2, 7])!])
        }

        func release(_ count: Int) { for _ in 0..<count { gate.signal() } }
        var snapshot: (calls: Int, running: Int, mostAtOnce: Int) { lock.withLock { (calls, running, mostAtOnce) } }
    }

    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [(String, HostResolver.Outcome)] = []
        func append(_ name: HostName, _ outcome: HostResolver.Outcome) { lock.withLock { stored.append((name.name, outcome)) } }
        var values: [(String, HostResolver.Outcome)] { lock.withLock { stored } }
    }

    private func waitUntil(_ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(10)
        while !condition() && Date() < deadline { usleep(2_000) }
    }

    @Test func concurrentRequestsForOneNameShareOneLookupAndQueueAtMostOneMore() throws {
        let fake = FakeLookup()
        let reports = Reports()
        let resolver = HostResolver(lookUp: fake.lookUp, report: reports.append)
        let name = try HostName("shared.test")
        DispatchQueue.concurrentPerform(iterations: 50) { _ in resolver.resolve(name, timeout: .seconds(30)) }
        waitUntil { fake.snapshot.calls == 1 }
        #expect(fake.snapshot.running == 1)
        fake.release(1)
        waitUntil { fake.snapshot.calls == 2 }  // the queued rerun, once for all 49 later requests
        fake.release(1)
        waitUntil { reports.values.count == 2 }
        #expect(fake.snapshot.calls == 2)
        #expect(reports.values.allSatisfy { $0.1 == .resolved([IPAddress(bytes: [192, 0, 2, 7])!]) })
    }

    @Test func manyNamesNeverBlockMoreThanTheLaneCount() throws {
        let fake = FakeLookup()
        let reports = Reports()
        let resolver = HostResolver(lookUp: fake.lookUp, report: reports.append)
        for index in 0..<20 { resolver.resolve(try HostName("name\(index).test"), timeout: .seconds(30)) }
        waitUntil { fake.snapshot.running == HostResolver.laneCount }
        usleep(100_000)
        #expect(fake.snapshot.mostAtOnce == HostResolver.laneCount)
        fake.release(20)
        waitUntil { reports.values.count == 20 }
        #expect(fake.snapshot.mostAtOnce <= HostResolver.laneCount)
        #expect(Set(reports.values.map(\.0)).count == 20)
    }

    @Test func aLookupOverTheTimeoutReportsTimedOutThenTheLateAnswer() throws {
        let fake = FakeLookup()
        let reports = Reports()
        let resolver = HostResolver(lookUp: fake.lookUp, report: reports.append)
        resolver.resolve(try HostName("slow.test"), timeout: .milliseconds(50))
        waitUntil { reports.values.count == 1 }
        #expect(reports.values.first?.1 == .timedOut)
        fake.release(1)
        waitUntil { reports.values.count == 2 }
        #expect(reports.values.last?.1 == .resolved([IPAddress(bytes: [192, 0, 2, 7])!]))
    }

    @Test func everyThreadEndsOnceTheLookupsAreDoneSoTheProcessCanSleep() throws {
        // Given lookups on every lane, one of them past its timeout
        let fake = FakeLookup()
        let reports = Reports()
        let resolver = HostResolver(lookUp: fake.lookUp, report: reports.append)
        resolver.resolve(try HostName("late.test"), timeout: .milliseconds(20))
        for index in 0..<7 { resolver.resolve(try HostName("name\(index).test"), timeout: .seconds(30)) }
        waitUntil { reports.values.count == 1 }
        #expect(resolver.hasThreads)
        // When every lookup has answered
        fake.release(8)
        waitUntil { reports.values.count == 9 }
        // Then no lane or timer thread is left, though seven 30-second timeouts were pending
        waitUntil { !resolver.hasThreads }
        #expect(!resolver.hasThreads)
    }
}
