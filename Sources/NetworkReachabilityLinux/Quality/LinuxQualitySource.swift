package import NetworkReachabilityCore
import NetworkReachabilityPOSIX
import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Link quality on Linux, measured passively from every process's TCP flows through sock_diag.
///
/// While measuring, a thread of its own blocks in `poll` on a `NETLINK_SOCK_DIAG` socket subscribed to the groups
/// that report each closing TCP socket's last `tcp_info` (IPv4 and IPv6) and an eventfd that stops it. A closing flow
/// is a sample, and also says TCP moves: the reader then reads every open flow (a dump) at most once per
/// ``readInterval``, and goes on reading each interval until ``quietReads`` reads in a row find no flow through a
/// gateway that moved data, so transfers that begin beside the one that closed give samples, and their throughput,
/// while they run. Then it reads nothing more until the next closing flow: a quiet host costs no read at all, and flows
/// open when measuring starts are read with the first that closes. Without the events (a kernel or a security policy
/// that refuses the groups), it reads on a timer instead: when measuring starts, then each ``readInterval`` while flows
/// move and each ``idleReadInterval`` once they have been quiet.
///
/// Datagrams from anyone but the kernel (port id 0) are dropped and counted, as on the routing socket.
package final class LinuxQualitySource: LinkQualitySource {
    /// The shortest time between two reads of every open flow.
    package static let readInterval: Duration = .seconds(1)
    /// Without events: the time between reads while no flow through a gateway moves.
    package static let idleReadInterval: Duration = .seconds(10)
    /// Reads in a row that find nothing moving before the reader stops reading: a transfer that begins within this
    /// many intervals of the last activity is seen while it runs.
    package static let quietReads = 3
    /// The shortest time between two estimates of an interface: samples arriving faster are recorded as they come and
    /// estimated together, so a change of class is heard at most this late.
    package static let estimateInterval: Duration = .milliseconds(100)
    /// After taking closing flows' events, the reader leaves the event socket for this long, so that events arriving
    /// together are taken in one wake-up (at most 100 a second) rather than one each; the socket's 1 MiB buffer
    /// holds far more than arrive meanwhile. With ``estimateInterval``, a host closing 10,000 connections a second
    /// costs the reader 3.7 % of a core, where a wake-up and an estimate per closing flow cost 68 %
    /// (`scripts/bench-quality`, `Benchmarks/results/2026-11-29-quality.md`).
    package static let eventPause: Duration = .milliseconds(10)

    private struct State {
        var estimator = QualityEstimator()
        /// Each interface's estimate after its last samples, and when it was made.
        var estimates: [String: (quality: LinkQuality, madeAt: ContinuousClock.Instant)] = [:]
        var reader: Reader?
        /// What readers that ended counted.
        var counted = QualityStatistics()
    }

    /// The thread that reads while measuring, and what only it touches.
    private final class Reader: @unchecked Sendable {
        // `sampler` and `events` are touched only by the reader's thread once it started: that thread, not the
        // compiler, makes it safe to hand on (`@unchecked`).
        let sampler: FlowSampler
        let events: NetlinkSocket?
        let wakeDescriptor: Int32
        let handler: @Sendable (Set<String>) -> Void
        let stopRequested = Locked(false)
        let counted = Locked(QualityStatistics())
        var thread: DedicatedThread?

        init(sampler: FlowSampler, events: NetlinkSocket?, handler: @escaping @Sendable (Set<String>) -> Void) {
            self.sampler = sampler
            self.events = events
            self.handler = handler
            wakeDescriptor = SystemCall.wakeDescriptor()
        }
    }

    private let namespace: NetworkNamespace?
    // Guarded by its lock; never held while reading the kernel or calling the handler.
    private let state = Locked(State())
    /// Held while a reader starts or stops, so that a start and a stop from two threads end in the order they took it
    /// (the reader's thread never takes it).
    private let lifecycle = Locked(())

    /// A source whose sockets open in `namespace` (the caller's when `nil`).
    package init(namespace: NetworkNamespace? = nil) {
        self.namespace = namespace
    }

    deinit { stop() }

    // MARK: - LinkQualitySource

    package func start(_ handler: @escaping @Sendable (Set<String>) -> Void) {
        lifecycle.withLock { _ in
            guard state.withLock({ $0.reader == nil }) else { return }
            // A kernel or a policy that refuses the destroy groups leaves the reader reading on its timer.
            let events = try? NetlinkSocket(
                groups: cnl_tcp_destroy_group_mask(), nonBlocking: true, receiveBufferSize: 1 << 20,
                namespace: namespace, family: cnl_netlink_sock_diag())
            let reader = Reader(sampler: FlowSampler(namespace: namespace), events: events, handler: handler)
            reader.counted.withLock { $0.hasEvents = events != nil }
            state.withLock { $0.reader = reader }
            do {
                reader.thread = try DedicatedThread(name: "quality") { [self] in run(reader) }
            } catch {
                state.withLock { $0.reader = nil }
                events?.close()
                reader.sampler.close()
                SystemCall.close(reader.wakeDescriptor)
            }
        }
    }

    package func stop() {
        lifecycle.withLock { _ in stopReader() }
    }

    /// Ends the reader, if one runs: its thread is joined and its sockets closed.
    private func stopReader() {
        guard let reader = state.withLock({ state -> Reader? in
            defer { state.reader = nil }
            return state.reader
        }) else { return }
        reader.stopRequested.withLock { $0 = true }
        SystemCall.signalEvent(reader.wakeDescriptor)
        reader.thread?.join()
        reader.events?.close()
        reader.sampler.close()
        SystemCall.close(reader.wakeDescriptor)
        let counted = Self.statistics(of: reader)
        state.withLock { state in
            state.counted = state.counted.adding(counted)
            state.estimator = QualityEstimator()
            state.estimates.removeAll()
        }
    }

    package func quality(of interface: NetworkInterface) -> LinkQuality {
        let now = ContinuousClock.now
        guard let estimate = state.withLock({ $0.estimates[interface.name] }) else { return .unmeasured }
        return Self.aged(estimate.quality, since: estimate.madeAt, now: now)
    }

    package func measureOnce(_ interface: NetworkInterface) -> LinkQuality {
        guard !state.withLock({ $0.reader != nil }) else { return quality(of: interface) }
        return readOnce(interface, now: .now)
    }

    package var statistics: QualityStatistics {
        let (counted, reader) = state.withLock { ($0.counted, $0.reader) }
        return reader.map { counted.adding(Self.statistics(of: $0)) } ?? counted
    }

    // MARK: - Reading

    /// With no reader: one read of the flows open now, estimated alone.
    private func readOnce(_ interface: NetworkInterface, now: ContinuousClock.Instant) -> LinkQuality {
        let sampler = FlowSampler(namespace: namespace)
        defer {
            sampler.close()
            let counted = sampler.statistics
            state.withLock { $0.counted = $0.counted.adding(counted) }
        }
        guard let batch = try? sampler.dump(now: now) else { return .unmeasured }
        var estimator = QualityEstimator()
        let samples = batch.samples.filter { $0.interface == interface.name }.map(\.sample)
        guard !samples.isEmpty else { return .unmeasured }
        return estimator.add(samples, on: interface.name, now: now).quality
    }

    /// The reader's loop: block on the events and the wake-up until a read is due, sample, estimate, tell.
    private func run(_ reader: Reader) {
        var nextRead: ContinuousClock.Instant? = reader.events == nil ? .now : nil
        var lastRead: ContinuousClock.Instant?
        // Counts down the reads left before the reader rests: reset by activity.
        var readsLeft = 1
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        // Interfaces with samples not estimated yet, and when they may be.
        var unestimated = Set<String>()
        var lastEstimate: ContinuousClock.Instant?
        var estimateDue: ContinuousClock.Instant?
        var eventsResume: ContinuousClock.Instant?
        while !reader.stopRequested.withLock({ $0 }) {
            if let resume = eventsResume, resume <= .now { eventsResume = nil }
            var descriptors = [
                pollfd(fd: reader.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                // -1 is skipped: no events socket, or one left alone for a moment
                pollfd(fd: eventsResume == nil ? reader.events?.descriptor ?? -1 : -1, events: Int16(POLLIN), revents: 0),
            ]
            let wakeAt = [nextRead, estimateDue, eventsResume].compactMap { $0 }.min()
            let timeout = wakeAt.map { Int32(clamping: Self.milliseconds(until: $0)) } ?? -1
            guard (try? SystemCall.run("poll", { poll(&descriptors, nfds_t(descriptors.count), timeout) })) != nil else {
                break
            }
            if descriptors[0].revents != 0 { SystemCall.consumeEvent(reader.wakeDescriptor) }
            if reader.stopRequested.withLock({ $0 }) { break }
            let now = ContinuousClock.now
            var batch = FlowSampler.Batch()
            if descriptors[1].revents != 0, let events = reader.events {
                let reports = Self.drain(events, into: &buffer, counting: reader)
                batch = reader.sampler.samples(of: reports, areFinal: true, now: now)
                eventsResume = now + Self.eventPause
                // A closing flow says TCP moves: read the open ones too, no sooner than an interval after the last.
                if !reports.isEmpty {
                    readsLeft = Self.quietReads
                    if nextRead == nil { nextRead = lastRead.map { max(now, $0 + Self.readInterval) } ?? now }
                }
            }
            if let due = nextRead, due <= now {
                lastRead = now
                let read = (try? reader.sampler.dump(now: now)) ?? FlowSampler.Batch()
                batch.samples += read.samples
                readsLeft = read.movingFlows > 0 ? Self.quietReads : readsLeft - 1
                if readsLeft > 0 {
                    nextRead = now + Self.readInterval
                } else {
                    readsLeft = 1
                    nextRead = reader.events == nil ? now + Self.idleReadInterval : nil
                }
            }
            unestimated.formUnion(record(batch, from: reader))
            guard !unestimated.isEmpty else { continue }
            if let last = lastEstimate, now < last + Self.estimateInterval {
                estimateDue = last + Self.estimateInterval
                continue
            }
            estimate(unestimated, from: reader, now: now)
            unestimated.removeAll()
            lastEstimate = now
            estimateDue = nil
        }
    }

    /// Adds a batch's samples to the estimator; the interfaces they were for.
    private func record(_ batch: FlowSampler.Batch, from reader: Reader) -> Set<String> {
        guard !batch.samples.isEmpty else { return [] }
        var byInterface: [String: [QualitySample]] = [:]
        for (interface, sample) in batch.samples { byInterface[interface, default: []].append(sample) }
        state.withLock { state in
            guard state.reader === reader else { return }
            for (interface, samples) in byInterface { state.estimator.record(samples, on: interface) }
        }
        return Set(byInterface.keys)
    }

    /// Estimates `interfaces` again and tells the handler which changed class.
    private func estimate(_ interfaces: Set<String>, from reader: Reader, now: ContinuousClock.Instant) {
        let changed: Set<String> = state.withLock { state in
            guard state.reader === reader else { return [] }
            var changed = Set<String>()
            for interface in interfaces {
                let before = state.estimator.effectiveType(of: interface)
                let quality = state.estimator.estimate(of: interface, now: now)
                state.estimates[interface] = (quality, now)
                if quality.effectiveType != before { changed.insert(interface) }
            }
            return changed
        }
        if !changed.isEmpty { reader.handler(changed) }
    }

    /// Every closing flow's report queued on the event socket, the kernel's only.
    private static func drain(_ events: NetlinkSocket, into buffer: inout [UInt8], counting reader: Reader) -> [FlowReport] {
        var reports: [FlowReport] = []
        var foreign = 0
        var malformed = 0
        while let datagram = try? events.receiveQueued(into: &buffer) {
            switch datagram {
            case .kernel(let count):
                let cut = NetlinkMessage.walk(buffer[..<count]) { message in
                    if let report = FlowReport(message) { reports.append(report) } else { malformed += 1 }
                }
                malformed += cut
            case .foreign: foreign += 1
            case .truncated: malformed += 1
            case .overflowed: break  // closing flows were lost: fewer samples, nothing to re-read
            }
        }
        reader.counted.withLock { counted in
            counted.events += reports.count
            counted.foreignMessages += foreign
            counted.malformedMessages += malformed
        }
        return reports
    }

    // MARK: - Helpers

    private static func statistics(of reader: Reader) -> QualityStatistics {
        reader.counted.withLock { $0 }.adding(reader.sampler.statistics)
    }

    /// `quality`, estimated at `madeAt`, with its age as of `now`; unknown once its newest sample is older than the
    /// estimator keeps samples.
    private static func aged(_ quality: LinkQuality, since madeAt: ContinuousClock.Instant, now: ContinuousClock.Instant)
        -> LinkQuality
    {
        var aged = quality
        aged.age = (quality.age ?? .zero) + max(.zero, now - madeAt)
        guard let age = aged.age, age <= QualityEstimator.maximumAge else { return .unmeasured }
        return aged
    }

    private static func milliseconds(until instant: ContinuousClock.Instant) -> Int64 {
        let remaining = instant - .now
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1
    }
}
