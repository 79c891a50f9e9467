import Foundation
import Testing
import TestSupport

/// `reach watch` under floods and forgery: it logs what happened (`--verbose`) and still says what the kernel says.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct HardeningCLITests {
    private func status(_ line: String) -> String? {
        (line.data(using: .utf8).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any])?["status"] as? String
    }

    /// Starts `reach watch --json --verbose` and waits for its first line, which must say reachable.
    private func startVerboseWatch(in network: TestNetwork) throws -> (Subprocess, output: LineCollector, log: LineCollector) {
        let output = LineCollector()
        let log = LineCollector()
        let watcher = try network.start(
            [ReachBinary.path, "watch", "--json", "--verbose"], output: output.pipe, errors: log.pipe)
        #expect(output.waitForLines(1).map(status) == ["reachable"])
        return (watcher, output, log)
    }

    @Test func verboseWatchLogsEachOverflowAndItsResyncThroughAFloodAndEndsOnTheKernelsAnswer() throws {
        // Given `reach watch --verbose` on an IPv4 network
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let (watcher, output, log) = try startVerboseWatch(in: network)
        defer { watcher.send(SIGKILL) }

        // When 100,000 route changes flood it while it is stopped, the last removing the default route
        // (stopped, so that its socket surely overflows: a reader that keeps up, as it can while the machine is
        // busy and `ip` slowed down too, would see no overflow; and with nothing arriving after, exactly one)
        watcher.send(SIGSTOP)
        try network.floodRoutes(100_000, finally: "route del default")
        watcher.send(SIGCONT)

        // Then the log names the overflow and counts the re-read, and the last line is the kernel's answer
        #expect(
            log.waitForLine(timeout: 20) { $0.contains("overflowed (ENOBUFS)") && $0.contains("resynchronizations so far: 1") }
                != nil)
        #expect(output.waitForLine(timeout: 20) { status($0) == "notReachable" } != nil)
        #expect(output.linesAfterQuiet().last.flatMap(status) == "notReachable")
        watcher.send(SIGTERM)
        #expect(watcher.wait() == .exited(0))
    }

    @Test func forgedNotificationsFromAnotherProcessAreDroppedCountedAndLogged() throws {
        // Given `reach watch --verbose` on a reachable network
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let (watcher, output, log) = try startVerboseWatch(in: network)
        defer { watcher.send(SIGKILL) }

        // When another process in the namespace unicasts forged "default route deleted" and "link down"
        // notifications to reach's netlink port (found by the socket's inode in /proc/PID/net/netlink)
        let forger = """
            import os, socket, struct, sys
            pid = int(sys.argv[1])
            inodes = {os.readlink(f'/proc/{pid}/fd/{fd}')[8:-1] for fd in os.listdir(f'/proc/{pid}/fd')
                      if os.readlink(f'/proc/{pid}/fd/{fd}').startswith('socket:')}
            ports = [int(fields[2]) for fields in (line.split() for line in open(f'/proc/{pid}/net/netlink').readlines()[1:])
                     if fields[1] == '0' and fields[3] != '00000000' and fields[-1] in inodes]
            s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
            route = struct.pack('=IHHII', 28, 25, 0, 1, 0) + bytes([2, 0, 0, 0, 254, 4, 0, 1]) + bytes(4)
            link = struct.pack('=IHHII', 32, 17, 0, 2, 0) + struct.pack('=BxHiII', 0, 1, 2, 0, 0xffffffff)
            for port in ports:
                s.sendto(route, (port, 0))
                s.sendto(link, (port, 0))
            print(len(ports))
            """
        let sent = try network.run(["/usr/bin/python3", "-c", forger, String(watcher.pid)])
        #expect(sent.lines == ["1"])

        // Then they are dropped and counted in the log, and no line changes the status
        #expect(log.waitForLine { $0.contains("not sent by the kernel") && $0.contains("so far") } != nil)
        #expect(output.linesAfterQuiet().map(status) == ["reachable"])
        watcher.send(SIGTERM)
        #expect(watcher.wait() == .exited(0))
    }

    @Test func anInterfaceRenamedDeletedAndRecreatedWhileWatchedIsReportedAsItIsNow() throws {
        // Given `reach watch` on a network reached through rn0
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let output = LineCollector()
        let watcher = try network.start([ReachBinary.path, "watch", "--json"], output: output.pipe)
        defer { watcher.send(SIGKILL) }
        let first = try #require(output.waitForLines(1).first.map(object))
        #expect((first["interface"] as? [String: Any])?["name"] as? String == "rn0")
        let firstIndex = (first["interface"] as? [String: Any])?["index"] as? Int

        // When rn0 is renamed wan0, the path says wan0
        try network.ip("link", "set", "rn0", "down")
        try network.ip("link", "set", "rn0", "name", "wan0")
        try network.ip("link", "set", "wan0", "up")
        try network.waitForOperationalState("UP", of: "wan0")
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        #expect(output.waitForLine { interfaceName($0) == "wan0" && status($0) == "reachable" } != nil)

        // When it is deleted, the internet is not reachable
        var count = output.lines.count
        try network.ip("link", "del", "wan0")
        #expect(output.waitForLine(after: count) { status($0) == "notReachable" } != nil)

        // When an rn0 is made again, it is reached through the new interface (a new index)
        count = output.lines.count
        try network.ip("link", "add", "rn0", "type", "veth", "peer", "name", "rngw", "netns", network.gatewayName)
        try network.gatewayIP("addr", "add", "\(TestNetwork.gatewayIPv4)/24", "dev", "rngw")
        try network.gatewayIP("link", "set", "rngw", "up")
        try network.ip("addr", "add", "\(TestNetwork.hostIPv4)/24", "dev", "rn0")
        try network.ip("link", "set", "rn0", "up")
        try network.waitForOperationalState("UP", of: "rn0")
        try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
        let again = output.waitForLine(after: count) { interfaceName($0) == "rn0" && status($0) == "reachable" }
        let againIndex = again.flatMap { (object($0)["interface"] as? [String: Any])?["index"] as? Int }
        #expect(againIndex != nil && againIndex != firstIndex)
    }

    private func object(_ line: String) -> [String: Any] {
        (line.data(using: .utf8).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]) ?? [:]
    }

    private func interfaceName(_ line: String) -> String? {
        (object(line)["interface"] as? [String: Any])?["name"] as? String
    }

    @Test func deletingTheNamespaceUnderARunningWatchEndsItWithOneLineAndExit70() throws {
        // Given `reach watch` inside a namespace
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let output = LineCollector()
        let errors = LineCollector()
        let watcher = try network.start([ReachBinary.path, "watch"], output: output.pipe, errors: errors.pipe)
        defer { watcher.send(SIGKILL) }
        #expect(output.waitForLines(1).count == 1)

        // When the namespaces are deleted under it (the kernel keeps its namespace alive while it runs)
        try Command.run(["ip", "netns", "del", network.gatewayName], check: true)
        try Command.run(["ip", "netns", "del", network.name], check: true)

        // Then it ends on its own, saying why in one line, with the exit code of a system failure
        let ended = eventually { !watcher.isRunning }
        #expect(ended)
        if ended { #expect(watcher.wait() == .exited(70)) }
        #expect(errors.waitForLines(1) == ["reach: network namespace /run/netns/\(network.name) was deleted"])
    }

    @Test func startingAmong100000RoutesAndAFloodOf100000ChangesCostNoExtraMemory() throws {
        // Given an empty network and one with 100,000 routes
        let empty = try TestNetwork(ipv4: true, ipv6: false)
        defer { empty.remove() }
        let crowded = try TestNetwork(ipv4: true, ipv6: false)
        defer { crowded.remove() }
        try crowded.addRoutes(100_000)

        // When `reach status` runs in each, and `reach watch` in the crowded one through a flood of changes
        func peak(of arguments: [String], in network: TestNetwork, during work: () throws -> Void) throws -> Int {
            let output = LineCollector()
            let process = try network.start([ReachBinary.path] + arguments, output: output.pipe)
            output.waitForLines(1)
            try work()
            _ = output.linesAfterQuiet()  // the flood is absorbed
            let peak = process.peakResidentKiB ?? .max
            process.send(SIGTERM)
            process.wait()
            return peak
        }
        let baseline = try peak(of: ["watch"], in: empty) {}
        let crowdedStart = try peak(of: ["watch"], in: crowded) {}
        // The same command without the flood: the first JSON line's one-time cost (the runtime's conformance caches,
        // which grow with every module linked in) is not the flood's
        let jsonBaseline = try peak(of: ["watch", "--json"], in: empty) {}
        let flooded = try peak(of: ["watch", "--json"], in: crowded) { try crowded.floodRoutes(100_000) }

        // Then the routes are never read (start-up reads only links) and the message buffer stays bounded
        print("peak resident KiB: empty \(baseline), 100,000 routes \(crowdedStart), JSON \(jsonBaseline), flood \(flooded)")
        if Sanitizer.current == nil {  // see Sanitizer: under one, memory is mostly its own bookkeeping
            #expect(crowdedStart - baseline < 2048)
            #expect(flooded - jsonBaseline < 4096)
        }
    }

    @Test func aDumpOf2000LinksIsParsedAsItStreamsIn() throws {
        // Given a network with 1,000 veth pairs more than another
        let plain = try TestNetwork(ipv4: true, ipv6: false)
        defer { plain.remove() }
        let crowded = try TestNetwork(ipv4: true, ipv6: false)
        defer { crowded.remove() }
        try crowded.addVethPairs(1000)

        // When `reach watch` starts in each (the subscription dumps every link once)
        func peak(in network: TestNetwork) throws -> Int {
            let output = LineCollector()
            let process = try network.start([ReachBinary.path, "watch", "link-local"], output: output.pipe)
            #expect(output.waitForLines(1).count == 1)
            let peak = process.peakResidentKiB ?? .max
            process.send(SIGTERM)
            process.wait()
            return peak
        }
        let plainPeak = try peak(in: plain)
        let crowdedPeak = try peak(in: crowded)

        // Then the 2,000 more links cost their parsed values, not a copy of every datagram (about 8 MiB)
        print("peak resident KiB: 3 links \(plainPeak), 2,003 links \(crowdedPeak)")
        if Sanitizer.current == nil { #expect(crowdedPeak - plainPeak < 3072) }
    }
}
