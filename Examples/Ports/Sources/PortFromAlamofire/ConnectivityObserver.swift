// Ported from an app that used Alamofire 5. Every line below is the app's own, except the edits Migrating.md lists:
//   1. `import Alamofire` became `import NetworkReachabilityKit`, behind `#if canImport`: the package is a Linux-only
//      dependency (see Package.swift), and an iOS build keeps Alamofire;
//   2. `NetworkReachabilityManager` became `NetworkReachability` (its nested `NetworkReachabilityStatus` and
//      `ConnectionType` keep their names);
//   3. `NetworkReachabilityManager()?` became `NetworkReachability()`: only the host initializer can fail here;
//   4. `NetworkReachabilityManager(host:)` became `try? NetworkReachability(host:)`: it throws a typed error where
//      Alamofire's returns nil.
// The class is `@MainActor`, as an app's UI-facing class under Swift 6 is: the listener is `@Sendable`, and a main
// actor class may be captured by it. Its closures run on the main queue and say so with `MainActor.assumeIsolated`.
#if canImport(NetworkReachabilityKit)
    import Dispatch
    import NetworkReachabilityKit

    /// Tells the app's UI whether it is online, and whether the API host is, as the app did with Alamofire.
    @MainActor
    public final class ConnectivityObserver {
        private let manager = NetworkReachability.default
        private let apiManager = try? NetworkReachability(host: "api.example.com")
        public private(set) var isOnline = false
        public private(set) var lastStatus: NetworkReachability.NetworkReachabilityStatus = .unknown
        public var onChange: ((String) -> Void)?

        public init() {}

        /// Whether the network is reachable now, read once, as `NetworkReachabilityManager()?.isReachable ?? false`.
        public static var isReachableNow: Bool { NetworkReachability().isReachable }

        public func start() {
            manager?.startListening(onQueue: .main) { [weak self] status in
                MainActor.assumeIsolated { self?.update(status) }
            }
            apiManager?.startListening { [weak self] status in  // Alamofire's default queue: .main
                MainActor.assumeIsolated {
                    if case .notReachable = status { self?.onChange?("The API host is not reachable") }
                }
            }
        }

        private func update(_ status: NetworkReachability.NetworkReachabilityStatus) {
            lastStatus = status
            switch status {
            case .unknown:
                onChange?("It is unknown whether the network is reachable")
            case .notReachable:
                isOnline = false
                onChange?("The network is not reachable")
            case .reachable(let connection):
                isOnline = true
                onChange?("The network is reachable over \(describe(connection))")
            }
        }

        private func describe(_ connection: NetworkReachability.NetworkReachabilityStatus.ConnectionType) -> String {
            switch connection {
            case .ethernetOrWiFi: "WiFi or Ethernet"
            case .cellular: "the cellular connection"
            }
        }

        public func stop() {
            manager?.stopListening()
            apiManager?.stopListening()
        }

        /// What the app's settings screen shows.
        public var summary: String {
            guard let manager else { return "unknown" }
            if manager.isReachableOnCellular { return "cellular" }
            if manager.isReachableOnEthernetOrWiFi { return "Wi-Fi or Ethernet" }
            let flags = manager.flags.map { "\($0)" } ?? "none"
            return manager.isReachable ? "reachable (\(manager.status))" : "offline (flags: \(flags))"
        }

        /// Alamofire's listener type, spelled out as the app did.
        public func listen(_ listener: @escaping NetworkReachability.Listener) {
            manager?.startListening(onUpdatePerforming: listener)
        }
    }
#endif
