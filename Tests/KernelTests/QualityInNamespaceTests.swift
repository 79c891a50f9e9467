import Foundation
import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux

/// The passive quality reader against real TCP flows in namespaces (a delay line, tbf), through a backend bound to
/// the test's namespace: which flows count, what it reads while idle, and what it does with a forged report.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct QualityInNamespaceTests {
    /// The internet's reachability in `network`, measuring quality, and the snapshots its snapshot consumer hears.
    private func measuring(in network: TestNetwork) throws -> (NetworkReachability, Recorder<ReachabilitySnapshot>, Consumer) {
        let monitor = ReachabilityMonitor(backend: LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name)))
        let reachability = try NetworkReachability(target: .internet, monitor: monitor, logger: NetworkReachability.silentLogger)
        reachability.measuresQuality = true
        let heard = Recorder<ReachabilitySnapshot>()
        let consumer = try reachability.addConsumer(rule: .snapshot) { heard.append($0) }
        return (reachability, heard, consumer)
    }

    @Test func withoutTrafficTheClassIsUnknownAndNothingIsRead() throws {
        let network = try TestNetwork.delayLine(oneWay: .milliseconds(10))
        defer { network.remove() }
        let (reachability, heard, consumer) = try measuring(in: network)
        defer { reachability.removeConsumer(consumer) }
        #expect(heard.waitFor(1).first?.path.quality == .unmeasured)
        // Three seconds of a quiet network: no read, and no event.
        let quiet = heard.valuesAfterQuiet(3)
        #expect(quiet.count == 1)
        let statistics = reachability.qualityStatistics
        #expect(statistics.reads == 0 && statistics.events == 0 && statistics.samples == 0, "\(statistics)")
        #expect(statistics.hasEvents)
        #expect(try reachability.currentSnapshot().path.quality?.effectiveType == .unknown)
    }

    @Test func aPeerOnTheLinkGivesNoSampleAndAPeerBeyondTheGatewayDoes() throws {
        let network = try TestNetwork.delayLine(oneWay: .milliseconds(10))
        defer { network.remove() }
        let (reachability, heard, consumer) = try measuring(in: network)
        defer { reachability.removeConsumer(consumer) }
        _ = heard.waitFor(1)
        // Three fetches from the gateway itself: on the link, so not the internet's quality.
        for _ in 0..<3 { try network.fetch(1000, from: TestNetwork.delayLineGatewayIPv4) }
        #expect(eventually { reachability.qualityStatistics.skippedFlows >= 3 })
        #expect(reachability.qualityStatistics.samples == 0)
        #expect(heard.valuesAfterQuiet().last?.path.quality?.effectiveType == .unknown)
        // One fetch from beyond the gateway: a sample, and the class.
        try network.fetch(1000)
        let measured = heard.waitFor { $0.path.quality?.effectiveType == .type4G }
        let rtt = try #require(measured?.path.quality?.rtt)
        // The delay line is a Python process: on a loaded machine it holds packets a few ms longer, never shorter.
        #expect(rtt >= .milliseconds(16) && rtt <= .milliseconds(40), "\(rtt) for a 20 ms round trip")
        #expect(reachability.qualityStatistics.samples >= 1)
    }

    @Test func aDownloadOverA300KilobitLinkReads3GByItsThroughput() throws {
        let network = try TestNetwork.delayLine(oneWay: .milliseconds(10), rateKbps: 300)
        defer { network.remove() }
        let (reachability, heard, consumer) = try measuring(in: network)
        defer { reachability.removeConsumer(consumer) }
        _ = heard.waitFor(1)
        // A short fetch first: its close wakes the reader, which then reads the long one while it runs.
        try network.fetch(1000)
        try network.fetch(150_000)
        let measured = try #require(heard.waitFor(timeout: 20) { $0.path.quality?.effectiveType == .type3G })
        let downlink = try #require(measured.path.quality?.downlinkKbps)
        #expect(downlink >= 240 && downlink <= 360, "\(downlink) kbit/s for a 300 kbit/s link")
        // Its round trip alone is 4g's: the class came from the throughput.
        #expect(QualityEstimator.classify(rtt: measured.path.quality?.rtt, downlinkKbps: nil) == .type4G)
    }

    @Test func aReportForgedByALocalProcessIsDroppedAndCounted() throws {
        let network = try TestNetwork.delayLine(oneWay: .milliseconds(10))
        defer { network.remove() }
        let (reachability, heard, consumer) = try measuring(in: network)
        defer { reachability.removeConsumer(consumer) }
        _ = heard.waitFor(1)
        // The reader's event socket: NETLINK_SOCK_DIAG (protocol 4) bound to the TCP destroy groups (mask 5).
        let table = try network.run(["cat", "/proc/net/netlink"]).lines
        let port = try #require(
            table.compactMap { line -> String? in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                return fields.count > 3 && fields[1] == "4" && fields[3] == "00000005" ? String(fields[2]) : nil
            }.first)
        // A report of a flow to the internet with a 5 s round trip, sent to that port by a user-space process.
        let forger = """
            import socket, struct
            info = bytearray(232)
            struct.pack_into('=I', info, 68, 5000000)
            struct.pack_into('=Q', info, 120, 100000)
            message = struct.pack('=BBBB', 2, 1, 0, 0) + bytes(4) + socket.inet_aton('\(TestNetwork.delayLineHostIPv4)') \\
                + bytes(12) + socket.inet_aton('\(TestNetwork.delayLineInternetIPv4)') + bytes(12) + bytes(4) \\
                + struct.pack('=Q', 99) + bytes(20)
            attribute = struct.pack('=HH', 4 + len(info), 2) + bytes(info)
            body = message + attribute
            s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 4)
            s.bind((0, 0))
            for _ in range(3):
                s.sendto(struct.pack('=IHHII', 16 + len(body), 20, 0, 0, s.getsockname()[0]) + body, (\(port), 0))
            """
        try Command.run(["ip", "netns", "exec", network.name, "/usr/bin/python3", "-c", forger], check: true)
        #expect(eventually { reachability.qualityStatistics.foreignMessages >= 3 })
        #expect(reachability.qualityStatistics.samples == 0)
        #expect(heard.valuesAfterQuiet().allSatisfy { $0.path.quality?.effectiveType == .unknown })
    }
}
