// Ported from an app that used Alamofire 5. Every line below is the app's own, except:
//   - `import Alamofire` became `import NetworkReachability`;
//   - `NetworkReachabilityManager` became `NetworkReachability`;
//   - `NetworkReachabilityManager(host:)` became `try? NetworkReachability(host:)` (it throws a typed error where
//     Alamofire's returns nil);
//   - the `#if canImport` around it all, as the package is a Linux-only dependency (see Package.swift).
#if canImport(NetworkReachability)
    import Dispatch
    import NetworkReachabilityKit

    /// Tells the app's UI whether it is online, and whether the API host is, as the app did with Alamofire.
    public final class ConnectivityObserver {
        private let manager = NetworkReachability.default
        private let apiManager = try? NetworkReachability(host: "api.example.com")
        private let queue = DispatchQueue(label: "connectivity")
        public private(set) var isOnline = false
        public var onChange: ((String) -> Void)?

        public init() {}

        public func start() {
            manager?.startListening(onQueue: queue) { [weak self] status in
                switch status {
                case .unknown:
                    self?.onChange?("It is unknown whether the network is reachable")
                case .notReachable:
                    self?.isOnline = false
                    self?.onChange?("The network is not reachable")
                case .reachable(.ethernetOrWiFi):
                    self?.isOnline = true
                    self?.onChange?("The network is reachable over WiFi or Ethernet")
                case .reachable(.cellular):
                    self?.isOnline = true
                    self?.onChange?("The network is reachable over the cellular connection")
                }
            }
            apiManager?.startListening(onQueue: queue) { [weak self] status in
                if case .notReachable = status { self?.onChange?("The API host is not reachable") }
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
