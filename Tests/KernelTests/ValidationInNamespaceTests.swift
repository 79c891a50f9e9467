import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import AsyncHTTPClient
import Logging
import MetricsTestKit
import NIOCore
import NIOPosix
import NetworkReachabilityValidation
import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// `ConnectivityValidator` with its real AsyncHTTPClient prober, against an HTTP endpoint in the gateway
/// namespace: each outcome is delivered once, in order, as the network changes.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct ValidationInNamespaceTests {
    /// An event loop whose one thread lives in the test namespace, so the prober's sockets open there.
    private func eventLoopGroup(in network: TestNetwork) throws -> MultiThreadedEventLoopGroup {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let path = "/run/netns/\(network.name)"
        let entered = try group.next().submit {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            defer { close(descriptor) }
            return descriptor >= 0 && cnl_setns_net(descriptor) == 0
        }.wait()
        guard entered else {
            try group.syncShutdownGracefully()
            throw CommandError(command: ["setns"], result: CommandResult(status: 1, standardOutput: "", standardError: path))
        }
        return group
    }

    /// Runs `body` with a validator of the namespace's internet whose prober's sockets open in the namespace,
    /// then closes it and shuts the prober and its event loop down, also when `body` throws.
    ///
    /// The probe timeout is long unless a test expects it to pass: a test process whose cooperative pool is
    /// held by synchronous tests resumes a probe late, and a short timeout would then say `limited` wrongly.
    private func withValidator(
        in network: TestNetwork, probing server: ProbeServer, timeout: Duration = .seconds(30),
        metrics: TestMetrics? = nil, _ body: (ConnectivityValidator) async throws -> Void
    ) async throws {
        let group = try eventLoopGroup(in: network)
        let prober = NamespacedProber(HTTPConnectivityProber(eventLoopGroup: group), on: group.next())
        let monitor = ReachabilityMonitor(
            backend: LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name)), metricsFactory: metrics)
        var failure: (any Error)?
        do {
            let validator = try ConnectivityValidator(
                reachability: NetworkReachability(target: .internet, monitor: monitor, logger: NetworkReachability.silentLogger),
                configuration: ValidationConfiguration(
                    probeURL: server.probeURL, timeout: timeout, initialRetryDelay: .seconds(120),
                    maximumRetryDelay: .seconds(120)),  // only network changes re-probe: the order is exact
                prober: prober)
            defer { validator.close() }
            try await body(validator)
        } catch {
            failure = error
        }
        try await prober.inner.shutdown()
        try await group.shutdownGracefully()
        if let failure { throw failure }
    }

    /// Records every outcome the validator delivers, so the test can wait for them with a timeout.
    private func record(_ validator: ConnectivityValidator) -> (Recorder<ValidationOutcome>, Task<Void, Never>) {
        let seen = Recorder<ValidationOutcome>()
        let updates = validator.updates
        return (seen, Task { for await outcome in updates { seen.append(outcome) } })
    }

    /// Each outcome delivered once, in order; and counted, with the monitor's work, in the monitor's metrics.
    @Test func eachAnswerOfTheEndpointIsDeliveredOnceInOrderAndCounted() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let server = try ProbeServer(in: network)
        defer { server.remove() }
        let metrics = TestMetrics()
        try await withValidator(in: network, probing: server, metrics: metrics) { validator in
            let (seen, reader) = record(validator)
            defer { reader.cancel() }
            #expect(await seen.waitForAsync(2) == [.notChecked, .validated])

            // Each switch of the endpoint is seen when the network changes: the route goes (nothing is probed),
            // then comes back (probed at once).
            var expected: [ValidationOutcome] = [.notChecked, .validated]
            for (mode, outcome) in [
                (ProbeServer.Mode.redirect, ValidationOutcome.captivePortal(loginURL: server.loginURL)),
                (.portalPage, .captivePortal(loginURL: nil)), (.noContent, .validated),
            ] {
                try server.set(mode)
                try network.ip("route", "del", "default")
                expected.append(.notChecked)
                #expect(await seen.waitForAsync(expected.count) == expected)
                try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
                expected.append(outcome)
                #expect(await seen.waitForAsync(expected.count) == expected)
            }
        }
        func probes(_ outcome: String) throws -> Int64 {
            try metrics.expectCounter("network_reachability_validation_probes_total", [("outcome", outcome)]).totalValue
        }
        #expect(try probes("validated") == 2 && probes("captivePortal") == 2 && probes("limited") == 0)
        // The route went and came back three times: at least the first answer and those six were delivered
        #expect(try metrics.expectCounter("network_reachability_deliveries_total").totalValue >= 7)
        #expect(try metrics.expectCounter("network_reachability_evaluations_total").totalValue >= 7)
        #expect(try metrics.expectTimer("network_reachability_change_to_delivery_seconds").values.count >= 6)
        let malformed = try metrics.expectCounter("network_reachability_dropped_messages_total", [("reason", "malformed")])
        #expect(malformed.totalValue == 0)
    }

    /// A client of the caller's (AsyncHTTPClient's default configuration follows redirects) still tells the portal
    /// by the redirect in its history; the validator logs to the caller's logger and leaves the client open.
    @Test func aCallersClientAndLoggerAreUsedAndTheClientIsLeftOpen() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let server = try ProbeServer(in: network)
        defer { server.remove() }
        try server.set(.redirect)
        let group = try eventLoopGroup(in: network)
        let client = HTTPClient(eventLoopGroup: group)
        let messages = Recorder<String>()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(messages) }
        let prober = NamespacedProber(HTTPConnectivityProber(httpClient: client, logger: logger), on: group.next())
        let monitor = ReachabilityMonitor(backend: LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name)))
        let validator = try ConnectivityValidator(
            reachability: NetworkReachability(target: .internet, monitor: monitor, logger: NetworkReachability.silentLogger),
            configuration: ValidationConfiguration(
                probeURL: server.probeURL, timeout: .seconds(30), initialRetryDelay: .seconds(120),
                maximumRetryDelay: .seconds(120)),
            prober: prober, logger: logger)
        let (seen, reader) = record(validator)
        #expect(await seen.waitForAsync(2) == [.notChecked, .captivePortal(loginURL: server.loginURL)])
        #expect(messages.values.contains { $0.hasPrefix("probe of \(server.probeURL): ") })
        reader.cancel()
        validator.close()
        try await prober.inner.shutdown()  // a caller's client: not shut down by the prober or the validator
        try await client.shutdown()  // so its own shutdown succeeds (a second one would throw)
        try await group.shutdownGracefully()
    }

    @Test func aDroppedProbeIsLimitedOnceAndAnAnswerLaterValidates() async throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let server = try ProbeServer(in: network)
        defer { server.remove() }
        try server.set(.dropped)
        try await withValidator(in: network, probing: server, timeout: .seconds(1)) { validator in
            let (seen, reader) = record(validator)
            defer { reader.cancel() }
            #expect(await seen.waitForAsync(2) == [.notChecked, .limited(reason: "timed out")])
            try server.set(.noContent)
            try network.ip("route", "del", "default")
            #expect(await seen.waitForAsync(3).last == .notChecked)
            try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
            #expect(await seen.waitForAsync(4).last == .validated)
            #expect(seen.values.filter { $0 == .limited(reason: "timed out") }.count == 1)
        }
    }

    @Test func aPortalPageGetsItsLoginURLFromTheAdvertisedCaptivePortalAPI() async throws {
        // An IPv6 router advertises the portal's RFC 8908 API (RFC 8910); the endpoint answers with a page.
        let network = try TestNetwork(ipv4: true, ipv6: true)
        defer { network.remove() }
        let server = try ProbeServer(in: network)
        defer { server.remove() }
        try server.set(.portalPage)
        _ = try network.startRouterAdvertisements(prefixLifetime: 600, captivePortal: server.apiURL)
        try await withValidator(in: network, probing: server) { validator in
            let (seen, reader) = record(validator)
            defer { reader.cancel() }
            let portal = ValidationOutcome.captivePortal(loginURL: server.loginURL)
            #expect(await eventuallyAsync { seen.values.contains(portal) })
            #expect(seen.values.filter { $0 == portal }.count == 1)
        }
    }
}

/// Runs each probe on the namespace's event loop: AsyncHTTPClient opens a request's first socket on the thread
/// that calls it, and a pool thread in the test process's own namespace sent the probe out of the host's
/// interface (where the host's own network also has a `192.0.2.1`) instead of to the test's gateway.
private struct NamespacedProber: ConnectivityProbing {
    let inner: HTTPConnectivityProber
    private let executor: EventLoopTaskExecutor

    init(_ inner: HTTPConnectivityProber, on loop: any EventLoop) {
        self.inner = inner
        executor = EventLoopTaskExecutor(loop: loop)
    }

    func fetch(_ url: String, accept: String?, timeout: Duration, bodyLimit: Int) async -> ProbeResponse {
        await withTaskExecutorPreference(executor) {
            await inner.fetch(url, accept: accept, timeout: timeout, bodyLimit: bodyLimit)
        }
    }
}

/// A task executor that runs its jobs on one NIO event loop.
private final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
