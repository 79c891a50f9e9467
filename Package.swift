// swift-tools-version: 6.1
import PackageDescription

/// Every target's settings: an import a file does not write, or one its public interface needs but does not say
/// `public import`, fails the build (MemberImportVisibility, InternalImportsByDefault). The README's examples are
/// built so too: they compile in an adopter's target that turns these on (Examples/Ports builds them without).
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "swift-network-reachability",
    products: [
        .library(name: "NetworkReachabilityKit", targets: ["NetworkReachabilityKit"]),
        .library(name: "NetworkReachabilityCore", targets: ["NetworkReachabilityCore"]),
        .library(name: "NetworkReachabilityNotifications", targets: ["NetworkReachabilityNotifications"]),
        .library(name: "NetworkReachabilityValidation", targets: ["NetworkReachabilityValidation"]),
        .library(name: "NetworkReachabilityValidationCore", targets: ["NetworkReachabilityValidationCore"]),
        .library(name: "NetworkReachabilityTesting", targets: ["NetworkReachabilityTesting"]),
        .library(name: "NetworkReachabilityRadio", targets: ["NetworkReachabilityRadio"]),
        .library(name: "NetworkReachabilityExporter", targets: ["NetworkReachabilityExporter"]),
        .library(name: "NetworkReachabilityQueue", targets: ["NetworkReachabilityQueue"]),
        .library(name: "NetworkReachabilitySettings", targets: ["NetworkReachabilitySettings"]),
        .executable(name: "reach", targets: ["reach"]),
        .executable(name: "reach-queue", targets: ["reach-queue"]),
    ],
    // What an adopter pays for is chosen by traits: a library user who names none (`traits: []`) resolves only
    // swift-log and swift-metrics. `Validation` brings AsyncHTTPClient for NetworkReachabilityValidation, `Exporter`
    // SwiftNIO, Prometheus and service-lifecycle for NetworkReachabilityExporter, `Queue` GRDB for the durable queue,
    // `Settings` Yams for the per-network settings file, `Command` the `reach` command with all four; the default is `Command`, so that `swift run reach` and the tests build here as they are.
    traits: [
        .trait(name: "Validation", description: "NetworkReachabilityValidation's HTTP prober (AsyncHTTPClient)."),
        .trait(name: "Exporter", description: "NetworkReachabilityExporter (SwiftNIO, Prometheus, service-lifecycle)."),
        .trait(name: "Queue", description: "The durable queue's SQLite store (GRDB)."),
        .trait(name: "Settings", description: "The per-network settings file, YAML read with Yams."),
        .trait(
            name: "Command",
            description: "The reach command (ArgumentParser), with validation, the exporter, the queue and the settings file.",
            enabledTraits: ["Validation", "Exporter", "Queue", "Settings"]),
        .default(enabledTraits: ["Command"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // Kernel netlink/rtnetlink macros and constants, as small prefixed C functions: the Linux backend's alone.
        .target(name: "CNetlink"),
        // crypt(3) of the system's libxcrypt, for `reach serve`'s bcrypt passwords.
        .target(name: "CCrypt", linkerSettings: [.linkedLibrary("crypt")]),
        // prctl(2), variadic in C, for `reach queue run`'s reaping of what its commands leave.
        .target(name: "CProcess"),
        // renameat2(2), hidden by Glibc's module, for the durable queue's creation of its file in one step.
        .target(name: "CFileSystem"),
        // POSIX threads, locks, clocks and bounded file reads of the library's own, over the C library of any POSIX
        // system.
        .target(name: "NetworkReachabilityPOSIX", swiftSettings: strictSettings),
        // Platform-neutral: model values, the evaluation rules on neutral facts, the monitor, waiting, the public
        // types. Imports no C library and no C module; knows a platform only through `RoutingBackend`.
        .target(
            name: "NetworkReachabilityCore",
            dependencies: [
                "NetworkReachabilityPOSIX",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // The Linux backend: rtnetlink, kernel queries, sysfs, getaddrinfo, inotify, router advertisements.
        .target(
            name: "NetworkReachabilityLinux",
            dependencies: [
                "NetworkReachabilityCore", "NetworkReachabilityPOSIX", "CNetlink",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The one import: the core, and its public initializers on this platform's backend.
        .target(
            name: "NetworkReachabilityKit",
            dependencies: [
                "NetworkReachabilityCore", "NetworkReachabilityLinux", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The NotificationCenter bridge: the only target that pays for full Foundation.
        .target(
            name: "NetworkReachabilityNotifications",
            dependencies: ["NetworkReachabilityCore"],
            swiftSettings: strictSettings
        ),
        // Validated connectivity (captive portals, dead uplinks) with any prober: no HTTP client of its own, so the
        // simulated network's tests do not build one.
        .target(
            name: "NetworkReachabilityValidationCore",
            dependencies: [
                "NetworkReachabilityCore", "NetworkReachabilityPOSIX", .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // The validator over HTTP with AsyncHTTPClient: only its users pay for the HTTP stack.
        .target(
            name: "NetworkReachabilityValidation",
            dependencies: [
                "NeedsValidationTrait", "NetworkReachabilityKit", "NetworkReachabilityCore", "NetworkReachabilityPOSIX",
                "NetworkReachabilityValidationCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["Validation"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Validation"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Validation"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Validation"])),
            ],
            swiftSettings: strictSettings
        ),
        // What ModemManager and NetworkManager know (radio technology, signal, roaming, metered), read over the
        // system D-Bus with a small client of the wire protocol: only its users pay for it.
        .target(
            name: "NetworkReachabilityRadio",
            dependencies: [
                "NetworkReachabilityKit", "NetworkReachabilityCore", "NetworkReachabilityLinux", "NetworkReachabilityPOSIX",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // A simulated network for users' tests: every public API on top of a network driven by hand.
        .target(
            name: "NetworkReachabilityTesting",
            dependencies: [
                "NetworkReachabilityCore", "NetworkReachabilityPOSIX", "NetworkReachabilityValidationCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The durable queue: jobs in SQLite (GRDB) that survive a crash and a reboot, run when their conditions hold.
        .target(
            name: "NetworkReachabilityQueue",
            dependencies: [
                "NeedsQueueTrait", "CFileSystem", "NetworkReachabilityCore", "NetworkReachabilityKit",
                "NetworkReachabilityPOSIX", "NetworkReachabilityValidationCore", .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["Queue"])),
            ],
            swiftSettings: strictSettings
        ),
        // Labels and overrides per network (`/etc/reach/networks`, a user's own), YAML read with Yams, applied to
        // every path of the process: only its users pay for libyaml and Foundation.
        .target(
            name: "NetworkReachabilitySettings",
            dependencies: [
                "NeedsSettingsTrait", "NetworkReachabilityKit", "NetworkReachabilityCore", "NetworkReachabilityLinux",
                "NetworkReachabilityPOSIX",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams", condition: .when(traits: ["Settings"])),
            ],
            swiftSettings: strictSettings
        ),
        // `reach serve`'s exporter, for a server to embed: each target's Prometheus series in the server's own
        // registry, the JSON of `/status` and `/events`, and the HTTP/1 server on SwiftNIO with TLS, basic
        // authentication and gzip that `reach serve` runs.
        .target(
            name: "NetworkReachabilityExporter",
            dependencies: [
                "NeedsExporterTrait", "NetworkReachabilityCore", "NetworkReachabilityPOSIX", "NetworkReachabilityValidationCore", "CCrypt",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: ["Exporter"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Exporter"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Exporter"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Exporter"])),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras", condition: .when(traits: ["Exporter"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["Exporter"])),
                .product(name: "NIOTLS", package: "swift-nio", condition: .when(traits: ["Exporter"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Exporter"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Exporter"])),
            ],
            swiftSettings: strictSettings,
            plugins: ["BuildRevision"]
        ),
        // One line naming the trait a library needs, where a build without it would say only "no such module".
        .target(name: "NeedsQueueTrait", path: "Sources/Traits/NeedsQueueTrait", swiftSettings: strictSettings),
        .target(name: "NeedsValidationTrait", path: "Sources/Traits/NeedsValidationTrait", swiftSettings: strictSettings),
        .target(name: "NeedsExporterTrait", path: "Sources/Traits/NeedsExporterTrait", swiftSettings: strictSettings),
        .target(name: "NeedsSettingsTrait", path: "Sources/Traits/NeedsSettingsTrait", swiftSettings: strictSettings),
        // The commit the exporter is built from, for `reach_build_info{revision}`.
        .plugin(name: "BuildRevision", capability: .buildTool()),
        // What `reach` and `reach-queue` share: printing, the options both take, and how a failure ends them.
        .target(
            name: "ReachCommandLine",
            dependencies: [
                "NetworkReachabilityKit", "NetworkReachabilityPOSIX", "NetworkReachabilityValidationCore",
                "NetworkReachabilityRadio", "NetworkReachabilitySettings",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Command"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The `reach` command: argument parsing and printing, and `reach serve`'s HTTP exporter on SwiftNIO's
        // HTTP/1, TLS and gzip (all already built for the validator's client).
        .executableTarget(
            name: "reach",
            dependencies: [
                "NetworkReachabilityKit", "NetworkReachabilityCore", "NetworkReachabilityLinux", "NetworkReachabilityPOSIX",
                "NetworkReachabilityValidation", "NetworkReachabilityRadio", "NetworkReachabilityExporter",
                "NetworkReachabilitySettings", "ReachCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Command"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Exporter"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Exporter"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Exporter"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Exporter"])),
                .product(name: "UnixSignals", package: "swift-service-lifecycle", condition: .when(traits: ["Exporter"])),
            ],
            swiftSettings: strictSettings
        ),
        // `reach queue`, a program of its own: only it loads SQLite, GRDB and Foundation.
        .executableTarget(
            name: "reach-queue",
            dependencies: [
                "NetworkReachabilityKit", "NetworkReachabilityPOSIX", "NetworkReachabilityQueue", "NetworkReachabilityValidation",
                "NetworkReachabilitySettings", "ReachCommandLine", "CProcess",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Command"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Fuzz targets (scripts/fuzz builds them with libFuzzer; a plain build replays inputs given as arguments).
        .target(name: "CFuzzDriver", path: "Fuzz/CFuzzDriver"),
        .executableTarget(
            name: "FuzzNetlink", dependencies: ["NetworkReachabilityLinux", "CFuzzDriver"], path: "Fuzz/FuzzNetlink",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "FuzzAddress", dependencies: ["NetworkReachabilityCore", "CFuzzDriver"], path: "Fuzz/FuzzAddress",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "FuzzDBus", dependencies: ["NetworkReachabilityRadio", "CFuzzDriver"], path: "Fuzz/FuzzDBus",
            swiftSettings: strictSettings
        ),
        // Creates and releases reachability objects on many threads at once; run by the kernel tests in a namespace.
        .executableTarget(
            name: "LifecycleStorm", dependencies: ["NetworkReachabilityKit", "NetworkReachabilityLinux"],
            path: "Tests/LifecycleStorm",
            swiftSettings: strictSettings
        ),
        // Test networks in namespaces, and running processes, for the kernel and CLI tests.
        .target(
            name: "TestSupport",
            dependencies: ["NetworkReachabilityPOSIX", .product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport",
            exclude: ["Modem"],  // the AT port the real ModemManager's test modem talks to, run by RealModemManager
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NetworkReachabilityTests",
            dependencies: [
                "NetworkReachabilityKit", "NetworkReachabilityCore", "NetworkReachabilityLinux", "NetworkReachabilityPOSIX",
                "CNetlink", "TestSupport",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NetworkReachabilityValidationTests",
            dependencies: ["NetworkReachabilityValidation", "NetworkReachabilityValidationCore"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "KernelTests",
            dependencies: [
                "NetworkReachabilityKit", "NetworkReachabilityCore", "NetworkReachabilityLinux", "NetworkReachabilityPOSIX",
                "NetworkReachabilityNotifications", "NetworkReachabilityTesting",
                "NetworkReachabilityValidation", "TestSupport", "LifecycleStorm", "CNetlink",
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Validation"])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["Validation"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NetworkReachabilityTestingTests",
            dependencies: [
                "NetworkReachabilityKit", "NetworkReachabilityCore", "NetworkReachabilityTesting",
                "NetworkReachabilityValidation", "TestSupport",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NetworkReachabilityRadioTests",
            dependencies: [
                "NetworkReachabilityRadio", "NetworkReachabilityKit", "NetworkReachabilityCore", "NetworkReachabilityLinux",
                "NetworkReachabilityTesting", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NetworkReachabilityExporterTests",
            dependencies: [
                "NetworkReachabilityExporter", "NetworkReachabilityCore", "NetworkReachabilityTesting",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Exporter"])),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: .when(traits: ["Exporter"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Exporter"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NetworkReachabilitySettingsTests",
            dependencies: [
                "NetworkReachabilitySettings", "NetworkReachabilityCore", "NetworkReachabilityPOSIX", "NetworkReachabilityTesting",
                "NetworkReachabilityValidationCore", "TestSupport",
            ],
            swiftSettings: strictSettings
        ),
        // The queue's store in a process of its own, killed at random moments by QueueCrashTests.
        .executableTarget(
            name: "QueueCrashDrill", dependencies: ["NetworkReachabilityQueue"], path: "Tests/QueueCrashDrill",
            swiftSettings: strictSettings
        ),
        // The README's and the articles' examples of the libraries behind a trait, as written (scripts/extract-examples);
        // those needing none compile in Examples/Ports, with their product alone.
        .testTarget(
            name: "ReadmeExampleTests",
            dependencies: [
                "NetworkReachabilityKit", "NetworkReachabilityValidation", "NetworkReachabilityExporter",
                "NetworkReachabilityQueue", "NetworkReachabilitySettings", .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Exporter"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Exporter"])),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NetworkReachabilityQueueTests",
            dependencies: [
                "NetworkReachabilityQueue", "NetworkReachabilityCore", "NetworkReachabilityPOSIX", "NetworkReachabilityTesting",
                "NetworkReachabilityValidationCore", "QueueCrashDrill",
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["Queue"])),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // ARCHITECTURE.md's rules that the module graph alone does not check, read from the sources.
        .testTarget(name: "ArchitectureTests", dependencies: ["TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "ReachCLITests",
            dependencies: ["reach", "reach-queue", "NetworkReachabilityExporter", "TestSupport"],
            swiftSettings: strictSettings
        ),
    ]
)
