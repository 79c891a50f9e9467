// swift-tools-version: 6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "swift-network-reachability",
    products: [
        .library(name: "NetworkReachability", targets: ["NetworkReachability"]),
        .library(name: "NetworkReachabilityNotifications", targets: ["NetworkReachabilityNotifications"]),
        .library(name: "NetworkReachabilityTesting", targets: ["NetworkReachabilityTesting"]),
        .executable(name: "reach", targets: ["reach"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Kernel netlink/rtnetlink macros and constants, as small prefixed C functions.
        .target(name: "CNetlink"),
        // The library: model values, the Linux kernel backend, the shared monitor, the public API.
        .target(
            name: "NetworkReachability",
            dependencies: [
                "CNetlink",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The NotificationCenter bridge: the only target that pays for full Foundation.
        .target(
            name: "NetworkReachabilityNotifications",
            dependencies: ["NetworkReachability"],
            swiftSettings: strictSettings
        ),
        // A simulated network for users' tests: every public API on top of a network driven by hand.
        .target(
            name: "NetworkReachabilityTesting",
            dependencies: [
                "NetworkReachability",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The `reach` command: argument parsing and printing only.
        .executableTarget(
            name: "reach",
            dependencies: [
                "NetworkReachability",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Fuzz targets (scripts/fuzz builds them with libFuzzer; a plain build replays inputs given as arguments).
        .target(name: "CFuzzDriver", path: "Fuzz/CFuzzDriver"),
        .executableTarget(
            name: "FuzzNetlink", dependencies: ["NetworkReachability", "CFuzzDriver"], path: "Fuzz/FuzzNetlink",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "FuzzAddress", dependencies: ["NetworkReachability", "CFuzzDriver"], path: "Fuzz/FuzzAddress",
            swiftSettings: strictSettings
        ),
        // Creates and releases reachability objects on many threads at once; run by the kernel tests in a namespace.
        .executableTarget(
            name: "LifecycleStorm", dependencies: ["NetworkReachability"], path: "Tests/LifecycleStorm",
            swiftSettings: strictSettings
        ),
        // Test networks in namespaces, and running processes, for the kernel and CLI tests.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strictSettings),
        .testTarget(
            name: "NetworkReachabilityTests",
            dependencies: ["NetworkReachability"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "KernelTests",
            dependencies: [
                "NetworkReachability", "NetworkReachabilityNotifications", "NetworkReachabilityTesting", "TestSupport",
                "LifecycleStorm",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NetworkReachabilityTestingTests",
            dependencies: ["NetworkReachability", "NetworkReachabilityTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReachCLITests",
            dependencies: ["reach", "TestSupport"],
            swiftSettings: strictSettings
        ),
    ]
)
