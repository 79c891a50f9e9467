import NIOCore
import NIOEmbedded
import NetworkReachabilityCore
import NetworkReachabilityTesting
import Prometheus
import Testing

@testable import NetworkReachabilityExporter

/// The exporter as a server embeds it: the targets' series in the server's own registry, beside its own, following
/// the network; the event loop's clock moved by hand, so each turn runs when the test says.
struct ReachabilityExporterTests {
    private func text(_ registry: PrometheusCollectorRegistry) -> String {
        String(decoding: registry.emitToBuffer(), as: UTF8.self)
    }

    @Test func theSeriesGoToTheServersOwnRegistryAndFollowTheNetwork() async throws {
        let network = SimulatedNetwork()
        try network.addInterface("eth0")
        try network.addAddress("192.0.2.10/24", to: "eth0")
        try network.addDefaultRoute(via: "192.0.2.1")
        let registry = PrometheusCollectorRegistry()
        registry.makeGauge(descriptor: MetricNameDescriptor(metricName: "my_app_up", unitName: "", helpText: "The server's own series."))
            .set(to: 1.0)
        let loop = NIOAsyncTestingEventLoop()
        let exporter = try ReachabilityExporter(
            targets: [("internet", try NetworkReachability(network: network))], registry: registry, eventLoop: loop)
        network.settle()  // the first state is delivered, and waits in the exporter's inbox for a turn
        await loop.run()
        try await exporter.ready.get()
        #expect(text(registry).contains("my_app_up 1"))
        #expect(text(registry).contains(#"reach_target_reachable{target="internet"} 1"#))

        network.removeDefaultRoutes()
        network.settle()
        await loop.advanceTime(by: ServedTargets.turnInterval)  // a turn at most every 100 ms
        #expect(text(registry).contains(#"reach_target_reachable{target="internet"} 0"#))
        let status = try await exporter.status().get()
        #expect(status.hasPrefix("[{") && status.contains(#""status":"notReachable""#) && status.contains(#""reason":"noRoute""#))

        exporter.close()
        await loop.shutdownGracefully()
    }
}
