import NetworkReachabilityCore
import NetworkReachabilityPOSIX
import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Turns the kernel's reports of TCP sockets into quality samples, each for the interface whose gateway carries the
/// flow: one dump of every open socket (`ss -ti`), or the reports of closing sockets the reader receives.
///
/// A flow counts only when its peer is reached through a gateway (not on-link, not loopback, not the host's own
/// address): the path's quality is the internet's, not the LAN's. An open flow gives a sample when it is first seen
/// having moved data and again whenever it moved more since the last read; a closing one gives its final figures.
/// Used by one thread at a time (the reader's, or a read's with no reader).
final class FlowSampler {
    /// What one batch of reports gave.
    struct Batch {
        var samples: [(interface: String, sample: QualitySample)] = []
        /// Flows through a gateway that moved data since the read before (or, first seen, ever): while a read finds
        /// any, the reader reads again.
        var movingFlows = 0
    }

    /// The most sockets one read looks at; the rest of a dump is drained unread. A host with more open flows is
    /// sampled from the first ones the kernel lists, and a read's cost stays bounded (`Benchmarks/results/`).
    static let maximumFlowsPerRead = 16_384
    /// How long a peer's route is trusted before it is looked up again: a route change reaches the samples within it.
    static let routeLifetime: Duration = .seconds(10)
    /// The most peers whose route is remembered; beyond, the memory is cleared and starts again.
    static let maximumRemembered = 4096

    private enum Verdict {
        /// Reached through a gateway of the interface of this name.
        case gateway(interface: String)
        /// On-link, local, unroutable: not counted.
        case notCounted
    }

    private let namespace: NetworkNamespace?
    private let queries: KernelQueries
    private var socket: NetlinkSocket?
    private var sequence: UInt32 = 0
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Each open flow's bytes moved at the last read, by socket cookie.
    private var flows: [UInt64: (bytes: UInt64, at: ContinuousClock.Instant)] = [:]
    private var routes: [IPAddress: (verdict: Verdict, until: ContinuousClock.Instant)] = [:]
    private var linkNames: [Int: String] = [:]
    /// Counted so far, readable from any thread.
    private let counted = Locked(QualityStatistics())

    /// A sampler whose sockets open in `namespace` (the caller's when `nil`).
    init(namespace: NetworkNamespace?) {
        self.namespace = namespace
        queries = KernelQueries(namespace: namespace)
    }

    /// What it has counted so far: reads, samples, skipped flows, dropped messages.
    var statistics: QualityStatistics { counted.withLock { $0 } }

    /// Closes its sockets.
    func close() {
        socket?.close()
        socket = nil
        queries.close()
    }

    // MARK: - Reads

    /// Reads every open TCP flow of both families (`SOCK_DIAG_BY_FAMILY` dumps) and samples them.
    func dump(now: ContinuousClock.Instant) throws(ReachabilityError) -> Batch {
        counted.withLock { $0.reads += 1 }
        var reports: [FlowReport] = []
        for family in [IPAddress.Family.ipv4, .ipv6] { try dump(family, into: &reports) }
        let batch = samples(of: reports, areFinal: false, now: now)
        // Flows the dump no longer lists have closed: forget them, which also bounds the table by one dump's flows.
        let seen = Set(reports.map(\.cookie))
        flows = flows.filter { seen.contains($0.key) }
        return batch
    }

    private func dump(_ family: IPAddress.Family, into reports: inout [FlowReport]) throws(ReachabilityError) {
        let socket = try openSocket()
        sequence &+= 1
        try socket.send(FlowReport.dumpRequest(family: family, sequence: sequence))
        while true {
            guard case .completed(let datagram) = try socket.receive(into: &buffer) else {
                throw .systemCallFailed(call: "recvfrom(NETLINK_SOCK_DIAG)", errno: EAGAIN)
            }
            guard datagram.senderPortID == 0 else {
                counted.withLock { $0.foreignMessages += 1 }
                continue
            }
            guard !datagram.isTruncated else {
                counted.withLock { $0.malformedMessages += 1 }
                continue
            }
            var finished = false
            var failure: Int32?
            var malformed = 0
            let cut = NetlinkMessage.walk(buffer[..<datagram.count]) { message in
                guard message.sequence == sequence, message.portID == socket.portID else { return }
                if message.isDone {
                    finished = true
                } else if let code = message.errorCode, code < 0 {
                    failure = -code
                    finished = true
                } else if reports.count < Self.maximumFlowsPerRead {
                    if let report = FlowReport(message) { reports.append(report) } else { malformed += 1 }
                }
            }
            malformed += cut
            if malformed > 0 { counted.withLock { [malformed] in $0.malformedMessages += malformed } }
            if let failure { throw .systemCallFailed(call: "SOCK_DIAG_BY_FAMILY", errno: failure) }
            if finished { return }
        }
    }

    private func openSocket() throws(ReachabilityError) -> NetlinkSocket {
        if let socket { return socket }
        let opened = try NetlinkSocket(
            receiveBufferSize: 1 << 20, receiveTimeout: 5, namespace: namespace, family: cnl_netlink_sock_diag())
        socket = opened
        return opened
    }

    // MARK: - Samples

    /// The samples `reports` give: closing flows' (`areFinal`) or a dump's.
    func samples(of reports: [FlowReport], areFinal: Bool, now: ContinuousClock.Instant) -> Batch {
        lookUpRoutes(of: reports, now: now)
        var batch = Batch()
        var skipped = 0
        for report in reports {
            guard report.rttMicroseconds > 0, let peer = Self.peer(of: report),
                case .gateway(let interface) = routes[peer]?.verdict
            else {
                skipped += 1
                continue
            }
            let moved = report.bytesMoved
            let previous = areFinal ? flows.removeValue(forKey: report.cookie) : flows[report.cookie]
            if !areFinal { flows[report.cookie] = (moved, now) }
            let delta = previous.map { moved &- $0.bytes }
            // A flow seen before that moved nothing since says nothing new; one that never moved anything, nothing.
            guard moved > 0, delta != 0 else { continue }
            batch.movingFlows += 1
            var downlink: Int?
            if !report.isApplicationLimited, report.bytesAcknowledged >= QualitySample.minimumMeasuredBytes,
                let rate = report.deliveryRate, rate > 0
            {
                downlink = Int(rate * 8 / 1000)
            } else if let previous, let delta {
                downlink = QualitySample.throughputKbps(bytes: delta, over: now - previous.at)
            }
            let sample = QualitySample(
                rtt: .microseconds(Int64(report.rttMicroseconds)),
                minimumRTT: report.minimumRTTMicroseconds.map { .microseconds(Int64($0)) }, downlinkKbps: downlink,
                takenAt: now)
            batch.samples.append((interface, sample))
        }
        counted.withLock { [skipped, sampled = batch.samples.count] in
            $0.skippedFlows += skipped
            $0.samples += sampled
        }
        return batch
    }

    /// The peer's address as the kernel routes it: an IPv4-mapped IPv6 address as IPv4; `nil` for the host itself
    /// (loopback, or a flow whose two ends are the host's own address) and link-local peers, which no gateway
    /// carries.
    private static func peer(of report: FlowReport) -> IPAddress? {
        var peer = report.destination
        if peer.family == .ipv6, (0..<10).allSatisfy({ peer[byte: $0] == 0 }), peer[byte: 10] == 0xFF, peer[byte: 11] == 0xFF,
            let mapped = IPAddress(networkOrder: (12..<16).map { peer[byte: $0] })
        {
            peer = mapped
        }
        let isLoopback =
            peer.family == .ipv4 ? peer[byte: 0] == 127 : (0..<15).allSatisfy { peer[byte: $0] == 0 } && peer[byte: 15] == 1
        guard !isLoopback, !peer.isLinkLocal, peer != report.source.withoutZone else { return nil }
        return peer
    }

    /// Looks up, in one round trip, the routes of the peers not remembered (or remembered too long).
    private func lookUpRoutes(of reports: [FlowReport], now: ContinuousClock.Instant) {
        var unknown: [IPAddress] = []
        var asked = Set<IPAddress>()
        for report in reports where report.rttMicroseconds > 0 {
            guard let peer = Self.peer(of: report), !asked.contains(peer) else { continue }
            if let known = routes[peer], known.until > now { continue }
            asked.insert(peer)
            unknown.append(peer)
        }
        guard !unknown.isEmpty else { return }
        if routes.count + unknown.count > Self.maximumRemembered {
            routes.removeAll(keepingCapacity: true)
            linkNames.removeAll()
        }
        let answers = (try? queries.lookupRoutes(to: unknown)) ?? []
        let until = now + Self.routeLifetime
        for (position, peer) in unknown.enumerated() {
            var verdict = Verdict.notCounted
            if position < answers.count, case .route(let route) = answers[position], route.type == .unicast,
                route.gateway != nil || !route.multipathGateways.isEmpty, let index = route.outputInterface,
                let name = linkName(index)
            {
                verdict = .gateway(interface: name)
            }
            routes[peer] = (verdict, until)
        }
    }

    /// The name of the link with `index`, from the links read last (read again for an index not among them).
    private func linkName(_ index: Int) -> String? {
        if let name = linkNames[index] { return name }
        guard let links = try? queries.links() else { return nil }
        linkNames = Dictionary(links.map { ($0.index, $0.name) }, uniquingKeysWith: { first, _ in first })
        return linkNames[index]
    }
}
