// swift-tools-version: 6.1
import PackageDescription

// The benchmarks live in a package of their own, as swift-nio's do, so the library's users never resolve
// ordo-one/benchmark. Run from this directory: `swift package benchmark` (see ../scripts/bench).

// A path dependency's identity is its directory's name, which depends on where the project was cloned.
let rootIdentity = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "main").lowercased()

let package = Package(
    name: "swift-network-reachability-benchmarks",
    dependencies: [
        // The library and the durable queue's store: swift-log, swift-metrics and GRDB.
        .package(path: "..", traits: ["Queue"]),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "ReachabilityBenchmarks",
            dependencies: [
                .product(name: "NetworkReachabilityKit", package: rootIdentity),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ReachabilityBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The durable queue under load, for scripts/bench-queue.
        .executableTarget(
            name: "QueueLoad",
            dependencies: [
                .product(name: "NetworkReachabilityKit", package: rootIdentity),
                .product(name: "NetworkReachabilityQueue", package: rootIdentity),
            ],
            path: "Tools/QueueLoad",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Flags reads in a plain release loop, for scripts/bench-reads.
        .executableTarget(
            name: "ReadLoop",
            dependencies: [.product(name: "NetworkReachabilityKit", package: rootIdentity)],
            path: "Tools/ReadLoop",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
