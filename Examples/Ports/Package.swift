// swift-tools-version: 6.1
import PackageDescription

// Code written against Alamofire 5's NetworkReachabilityManager and Network.framework's NWPathMonitor, ported with only
// the edits Migrating.md lists, and the README's examples as written (ReadmeExamples, made by scripts/generate-docs).
// It compiles in Swift 5 language mode, as such app code usually is, and in Swift 6 mode: CI builds it in both
// (`PORT_LANGUAGE_MODE=6 swift build --manifest-cache none --scratch-path .build-swift6`, as .ci/run does).
let languageMode: SwiftLanguageMode = Context.environment["PORT_LANGUAGE_MODE"] == "6" ? .v6 : .v5

/// A product of the package, for Linux only: the package's backend is Linux's; an iOS build of the same app keeps
/// Alamofire or Network.framework.
func library(_ name: String) -> Target.Dependency {
    .product(name: name, package: "swift-network-reachability", condition: .when(platforms: [.linux]))
}

/// A target of ported or example code, in the language mode asked for.
@MainActor func example(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .target(name: name, dependencies: dependencies, swiftSettings: [.swiftLanguageMode(languageMode)])
}

let package = Package(
    name: "Ports",
    // No traits: the libraries alone, so this resolves swift-log and swift-metrics only.
    dependencies: [.package(name: "swift-network-reachability", path: "../..", traits: [])],
    targets: [
        example("PortFromAlamofire", [library("NetworkReachabilityKit")]),
        example("PortFromNWPathMonitor", [library("NetworkReachabilityKit")]),
        // Each README example that needs no trait, with only the product it imports: one that named a type its import
        // does not bring, or linked a module its product does not, fails here.
        example("ReadmeKitExamples", [library("NetworkReachabilityKit")]),
        example("ReadmeRadioExamples", [library("NetworkReachabilityRadio")]),
        example("ReadmeTestingExamples", [library("NetworkReachabilityTesting")]),
        .executableTarget(
            name: "ReadmeRun",
            dependencies: [
                "PortFromAlamofire", "PortFromNWPathMonitor", "ReadmeKitExamples", "ReadmeRadioExamples", "ReadmeTestingExamples",
            ],
            swiftSettings: [.swiftLanguageMode(languageMode)]),
    ]
)
