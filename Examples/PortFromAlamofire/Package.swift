// swift-tools-version: 6.1
import PackageDescription

// Code written against Alamofire 5's NetworkReachabilityManager, ported with no more change than the import, the
// type's name and a `try?` on the host initializer. Swift 5 language mode, as such app code usually is.
let package = Package(
    name: "PortFromAlamofire",
    dependencies: [.package(name: "swift-network-reachability", path: "../..")],
    targets: [
        .target(
            name: "PortFromAlamofire",
            dependencies: [
                // Linux only: the package's backend is Linux's; an iOS build of the same app keeps Alamofire.
                .product(
                    name: "NetworkReachabilityKit", package: "swift-network-reachability",
                    condition: .when(platforms: [.linux]))
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        )
    ]
)
