import Foundation
import Testing
import TestSupport

/// `reach queue run`, the worker, against the kernel's routes in a namespace and the real NetworkManager: jobs
/// wait for their conditions, a command cut by a lost route runs again, failures back off to `failed`, and a
/// stopped or killed worker leaves every job queued and none running twice at once.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread(timeLimit: .seconds(180)))
struct QueueInNamespaceTests {
    /// A worker in `network` with its stdout (the commands' output) and stderr (one line per run's end).
    private struct Worker {
        let output = LineCollector()
        let errors = LineCollector()
        let process: Subprocess

        init(_ database: String, in network: TestNetwork, environment: [String] = [], arguments: [String] = []) throws {
            process = try network.start(
                ["env"] + environment + [ReachBinary.path, "queue", "run", database] + arguments, output: output.pipe,
                errors: errors.pipe)
        }
    }

    /// A folder of the test's own, removed when it ends.
    private final class Folder {
        let path: String
        init() throws { path = try TestFolder.make("queue") }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        var database: String { path + "/jobs.db" }
    }

    /// Adds `command` from inside `network`; its id.
    @discardableResult
    private static func add(_ database: String, in network: TestNetwork, _ command: String, options: [String] = []) throws
        -> String
    {
        let result = try network.run([ReachBinary.path, "queue", "add", database] + options + ["--", "sh", "-c", command])
        guard result.status == 0, result.lines.count == 1 else { throw CommandError(command: [command], result: result) }
        return result.lines[0]
    }

    private static func list(_ database: String) throws -> [String] {
        try ReachBinary.run(["queue", "list", database]).lines
    }

    @Test func jobsWaitWhileTheDefaultRouteIsGoneAndRunInOrderWhenItReturns() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder()
        try network.ip("route", "del", "default")
        let worker = try Worker(folder.database, in: network)
        // Added while the worker runs: the worker hears each commit, and nothing runs while the route is gone
        for number in 1...3 {
            try Self.add(folder.database, in: network, "echo job \(number) \"$REACH_JOB_ID\" \"$REACH_ATTEMPT\"")
        }
        #expect(worker.output.linesAfterQuiet(1).isEmpty)
        #expect(try Self.list(folder.database).allSatisfy { $0.contains("\twaiting\t0/5\t") })

        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)

        #expect(worker.output.waitForLines(3) == ["job 1 1 1", "job 2 2 1", "job 3 3 1"])
        #expect(worker.errors.waitForLines(3).count == 3)
        #expect(try Self.list(folder.database).isEmpty)
        // A job added while the route is up runs at once: the commit wakes the worker
        try Self.add(folder.database, in: network, "echo later")
        #expect(worker.output.waitForLines(4).last == "later")
    }

    @Test func aCommandCutByALostRouteIsStoppedAndRunsAgainWithoutSpendingAnAttempt() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder()
        let worker = try Worker(folder.database, in: network)
        // The first run waits for the route to go; the second sees the marker and ends
        let marker = folder.path + "/first-run"
        try Self.add(
            folder.database, in: network,
            // The trap is set before the line the test waits for: a SIGTERM right after it must find it set.
            "trap 'echo stopped; exit 1' TERM; echo \"start $REACH_ATTEMPT\"; if [ -e \(marker) ]; then exit 0; fi; touch \(marker); sleep 60 & wait"
        )
        #expect(worker.output.waitForLine { $0 == "start 1" } != nil)
        #expect(try Self.list(folder.database).first?.contains("\trunning\t1/5\t") == true)

        try network.ip("route", "del", "default")

        #expect(worker.output.waitForLine { $0 == "stopped" } != nil)
        #expect(worker.errors.waitForLine { $0.contains("job 1, attempt 1: stopped, exit status 1") } != nil)
        #expect(eventually { (try? Self.list(folder.database).first?.contains("\twaiting\t0/5\t")) == true })
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        #expect(worker.errors.waitForLine { $0 == "reach: job 1, attempt 1: done" } != nil)
        #expect(worker.output.waitForLines(3) == ["start 1", "stopped", "start 1"])
        #expect(try Self.list(folder.database).isEmpty)
    }

    @Test func failuresBackOffThenTheJobIsKeptAsFailed() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder()
        let worker = try Worker(folder.database, in: network)
        try Self.add(
            folder.database, in: network, "date +%s.%N; exit 3", options: ["--attempts", "3", "--retry-delay", "0.3"])
        let ends = worker.errors.waitForLines(3)
        #expect(ends == (1...3).map { "reach: job 1, attempt \($0): exit status 3" })
        // Delays of 0.3 and 0.6 s between the attempts (the worker's clock against the commands' own)
        let times = worker.output.waitForLines(3).compactMap(Double.init)
        #expect(times.count == 3)
        if times.count == 3 {
            #expect(times[1] - times[0] >= 0.3 && times[2] - times[1] >= 0.6, "\(times)")
        }
        #expect(eventually { (try? Self.list(folder.database)) == ["1\tfailed\t3/3\treachable\tsh -c 'date +%s.%N; exit 3'"] })
        let json = try ReachBinary.run(["queue", "list", folder.database, "--json"]).standardOutput
        #expect(json.contains("\"lastError\":\"exit status 3\""))
        #expect(worker.errors.linesAfterQuiet(0.5).count == 3)
    }

    @Test func stoppedTheRunningCommandGetsSIGTERMAndStaysQueuedKilledNoSecondWorkerRunsItUntilItEnds() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder()
        let release = folder.path + "/release"
        try Self.add(
            folder.database, in: network,
            // The trap is set before the line the test waits for: a SIGTERM right after it must find it set.
            "trap 'echo term; exit 1' TERM; echo \"start $REACH_ATTEMPT\"; while [ ! -e \(release) ]; do sleep 0.05; done; echo released"
        )

        // SIGTERM to the worker: the command hears SIGTERM, the worker exits 0, the job waits with no attempt spent
        let first = try Worker(folder.database, in: network)
        #expect(first.output.waitForLine { $0 == "start 1" } != nil)
        first.process.send(SIGTERM)
        #expect(first.process.wait() == .exited(0))
        #expect(first.output.waitForLine { $0 == "term" } != nil)  // after the shell's "Terminated" for its sleep
        #expect(!first.output.lines.contains("released"))
        #expect(try Self.list(folder.database).first?.contains("\twaiting\t0/5\t") == true)

        // SIGKILL to the next worker: its command runs on and holds the file's lock, so a third worker is refused
        let second = try Worker(folder.database, in: network)
        #expect(second.output.waitForLine { $0 == "start 1" } != nil)
        second.process.send(SIGKILL)
        second.process.wait()
        let refused = try network.run([ReachBinary.path, "queue", "run", folder.database])
        #expect(refused.status == 75)
        #expect(refused.standardError.split(separator: "\n").count == 1)

        // Once that command ends, the next worker runs the job again: at least once, never twice at a time. (Its
        // output had no reader left: its `echo` ended it with SIGPIPE.)
        #expect(FileManager.default.createFile(atPath: release, contents: nil))
        #expect(eventually { (try? Command.run(["pgrep", "-f", "-x", ".*\(release).*"]).status) == 1 })
        let third = try Worker(folder.database, in: network)
        #expect(third.errors.waitForLine { $0 == "reach: job 1, attempt 2: done" } != nil)
        #expect(third.output.waitForLines(2) == ["start 2", "released"])
        #expect(try Self.list(folder.database).isEmpty)
    }

    @Test func aValidatedJobWaitsBehindACaptivePortalAndAWorkerWithoutAProbeSaysWhy() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let server = try ProbeServer(in: network)
        defer { server.remove() }
        try server.set(.redirect)
        let folder = try Folder()
        try Self.add(folder.database, in: network, "echo validated", options: ["--when", "validated"])

        // Without --validate, the worker says what the job needs and leaves it waiting
        let unable = try Worker(folder.database, in: network)
        #expect(unable.errors.waitForLine { $0 == "reach: 1 job waits for validation, which needs --validate URL" } != nil)
        unable.process.send(SIGTERM)
        #expect(unable.process.wait() == .exited(0))

        // With it, the job waits while the probe is redirected to a portal, and runs once it answers 204
        let worker = try Worker(folder.database, in: network, arguments: ["--validate", server.probeURL])
        #expect(eventually { server.probeCount >= 1 })
        #expect(worker.output.linesAfterQuiet(0.5).isEmpty)

        try server.set(.noContent)

        #expect(worker.output.waitForLines(1, timeout: 20) == ["validated"])
    }

    @Test func anUnmeteredJobWaitsWhileNetworkManagerSaysMeteredAndRunsWhenItSaysNot() throws {
        let network = try TestNetwork(ipv4: false, ipv6: false)
        defer { network.remove() }
        let manager = try RealNetworkManager(on: network)
        defer { manager.remove() }
        let folder = try Folder()
        let worker = try Worker(folder.database, in: network, environment: ["DBUS_SYSTEM_BUS_ADDRESS=\(manager.bus.address)"])
        try Self.add(folder.database, in: network, "echo unmetered", options: ["--when", "unmetered"])
        try Self.add(folder.database, in: network, "echo any")
        // The job with no condition beyond reachable runs past the held one
        #expect(worker.output.waitForLines(1, timeout: 20) == ["any"])
        #expect(worker.output.linesAfterQuiet(1) == ["any"])

        try manager.setMetered("no")

        #expect(worker.output.waitForLines(2, timeout: 20) == ["any", "unmetered"])
    }
}
