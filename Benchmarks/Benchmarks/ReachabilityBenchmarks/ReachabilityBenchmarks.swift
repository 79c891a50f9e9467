import Benchmark
import Dispatch
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityKit
@_spi(Tooling) import NetworkReachabilityLinux

// What issue 5 measures, as ordo-one/benchmark benchmarks. The flags reads and the parsing run anywhere;
// the 10,000-target benchmark changes the default route, so it runs only inside the throw-away namespace
// scripts/bench makes (NR_BENCH_NAMESPACE set). The route count in a name tells the table's size.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput], warmupIterations: 100,
        maxDuration: .seconds(3), maxIterations: 100_000)
    let routes = BenchmarkNetwork.ipv4RouteCount()

    Benchmark("Flags read, local address (\(routes) routes)") { benchmark in
        let reachability = try NetworkReachability(address: "127.0.0.1")
        for _ in benchmark.scaledIterations { blackHole(reachability.flags) }
    }

    Benchmark("Flags read, reachable through the default route (\(routes) routes)") { benchmark in
        let reachability = try NetworkReachability(address: BenchmarkNetwork.routedAddress)
        for _ in benchmark.scaledIterations { blackHole(reachability.flags) }
    }

    Benchmark("Flags read, no route (\(routes) routes)") { benchmark in
        let reachability = try NetworkReachability(address: BenchmarkNetwork.unreachableAddress)
        for _ in benchmark.scaledIterations { blackHole(reachability.flags) }
    }

    let dump = RouteDump.make(messages: 100_000)
    Benchmark(
        "Parse a dump of 100,000 route messages",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal, .custom("messages per second", polarity: .prefersLarger)],
            maxDuration: .seconds(5), maxIterations: 50)
    ) { benchmark in
        var parsed = 0
        benchmark.startMeasurement()
        let start = DispatchTime.now().uptimeNanoseconds
        for datagram in dump { parsed += KernelBytes.tally(datagram: datagram[...]).parsed }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        benchmark.stopMeasurement()
        precondition(parsed == 100_000, "the dump did not parse")
        benchmark.measurement(
            .custom("messages per second", polarity: .prefersLarger), Int(100_000 * 1_000_000_000 / max(elapsed, 1)))
    }

    guard BenchmarkNetwork.isBenchmarkNamespace else { return }
    let fleet = ListeningFleet(size: 10_000)
    Benchmark(
        "10,000 listening targets: default route removed, every target delivered (\(routes) routes)",
        configuration: .init(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .custom("resident bytes per target")],
            maxDuration: .seconds(20), maxIterations: 20),
        closure: { benchmark in
            benchmark.measurement(.custom("resident bytes per target"), fleet.residentBytesPerTarget)
            benchmark.startMeasurement()
            fleet.changeDefaultRoute(remove: true)
            benchmark.stopMeasurement()
            fleet.changeDefaultRoute(remove: false)  // untimed: back to reachable
        },
        setup: { fleet.start() },
        teardown: { fleet.stop() })

    let quietFleet = ListeningFleet(size: 10_000)
    Benchmark(
        "10,000 listening targets: a /32 route elsewhere added and removed, then one target's route (\(routes) routes)",
        configuration: .init(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .custom("targets evaluated")],
            maxDuration: .seconds(20), maxIterations: 50),
        closure: { benchmark in
            benchmark.startMeasurement()
            let evaluated = quietFleet.changeUnrelatedRouteThenOneTarget()
            benchmark.stopMeasurement()
            benchmark.measurement(.custom("targets evaluated"), evaluated)
            quietFleet.restoreFirstTarget()  // untimed
        },
        setup: { quietFleet.start() },
        teardown: { quietFleet.stop() })
}
