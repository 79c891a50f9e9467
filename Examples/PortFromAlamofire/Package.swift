// swift-tools-version: 6.1
import PackageDescription

// Code written against Alamofire 5's NetworkReachabilityManager, ported with only the edits Migrating.md lists.
// It compiles in Swift 5 language mode, as such app code usually is, and in Swift 6 mode: CI builds it in both
// (`PORT_LANGUAGE_MODE=6 swift build --manifest-cache none --scratch-path .build-swift6`, as .ci/run does).
let languageMode: SwiftLanguageMode = Context.environment["PORT_LANGUAGE_MODE"] == "6" ? .v6 : .v5

let package = Package(
    name: "PortFromAlamofire",
    // No traits: the library alone, so this resolves swift-log and swift-metrics only.
    dependencies: [.package(name: "swift-network-reachability", path: "../..", traits: [])],
    targets: [
        .target(
            name: "PortFromAlamofire",
            dependencies: [
                // Linux only: the package's backend is Linux's; an iOS build of the same app keeps Alamofire.
                .product(
                    name: "NetworkReachabilityKit", package: "swift-network-reachability",
                    condition: .when(platforms: [.linux]))
            ],
            swiftSettings: [.swiftLanguageMode(languageMode)]
        )
    ]
)
