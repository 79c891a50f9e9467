// swift-tools-version: 6.1
import PackageDescription

// An adopter who forgot a trait: each target uses a library behind one, and the package names none. CI builds each
// target (`swift build --target UsesQueue`) and expects it to fail with one line naming the trait.
func library(_ name: String) -> Target.Dependency { .product(name: name, package: "swift-network-reachability") }

let package = Package(
    name: "TraitCheck",
    dependencies: [.package(name: "swift-network-reachability", path: "../..", traits: [])],
    targets: [
        .target(name: "UsesQueue", dependencies: [library("NetworkReachabilityQueue")]),
        .target(name: "UsesValidation", dependencies: [library("NetworkReachabilityValidation")]),
        .target(name: "UsesExporter", dependencies: [library("NetworkReachabilityExporter")]),
        .target(name: "UsesSettings", dependencies: [library("NetworkReachabilitySettings")]),
    ]
)
