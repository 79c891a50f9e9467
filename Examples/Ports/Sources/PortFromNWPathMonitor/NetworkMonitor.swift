// Ported from an app that used Network.framework's NWPathMonitor. Every line below is the app's own, except the edits
// Migrating.md lists:
//   1. `import Network` became `import NetworkReachabilityKit`, behind `#if canImport`: the package is a Linux-only
//      dependency (see Package.swift), and an iOS build keeps Network.framework;
//   2. `NWPathMonitor`, `NWPath` and `NWInterface` became `NetworkPathMonitor`, `NetworkPath` and `NetworkInterface`.
// Its state lives on the monitor's queue, as the app kept it, so the class is `@unchecked Sendable` in Swift 6 mode.
#if canImport(NetworkReachabilityKit)
    import Dispatch
    import NetworkReachabilityKit

    /// Tells the app whether it is online and over what, as the app did with NWPathMonitor.
    public final class NetworkMonitor: @unchecked Sendable {
        public enum ConnectionType: Sendable { case wifi, cellular, ethernet, other, none }

        public static let shared = NetworkMonitor()
        private let monitor = NetworkPathMonitor()
        private let wifiOnly = NetworkPathMonitor(requiredInterfaceType: .wifi)
        private static let avoided: [NetworkInterface.InterfaceType] = [.cellular, .other]
        private let noMobileData = NetworkPathMonitor(prohibitedInterfaceTypes: NetworkMonitor.avoided)
        private let queue = DispatchQueue(label: "NetworkMonitor")
        private var connected = false
        private var expensive = false
        private var type = ConnectionType.none
        public var onChange: (@Sendable (String) -> Void)?

        public init() {}

        public var isConnected: Bool { queue.sync { connected } }
        public var isExpensive: Bool { queue.sync { expensive } }
        public var connectionType: ConnectionType { queue.sync { type } }
        public var isOnWiFi: Bool { wifiOnly.currentPath.status == .satisfied }
        public var isOnlineWithoutMobileData: Bool { noMobileData.currentPath.status == .satisfied }

        public func startMonitoring() {
            monitor.pathUpdateHandler = { [weak self] path in
                guard let self else { return }
                self.connected = path.status == .satisfied
                self.expensive = path.isExpensive || path.isConstrained
                self.type = Self.connectionType(of: path)
                self.onChange?("\(Self.describe(path.status)) via \(self.type), gateways \(path.gateways)")
                print("path: \(path.debugDescription)")
            }
            monitor.start(queue: queue)
        }

        public func stopMonitoring() {
            monitor.cancel()
        }

        private static func connectionType(of path: NetworkPath) -> ConnectionType {
            guard path.status == .satisfied else { return .none }
            if path.usesInterfaceType(.wifi) { return .wifi }
            if path.usesInterfaceType(.cellular) { return .cellular }
            if path.usesInterfaceType(.wiredEthernet) { return .ethernet }
            return .other
        }

        private static func describe(_ status: NetworkPath.Status) -> String {
            switch status {
            case .satisfied: return "online"
            case .unsatisfied: return "offline"
            case .requiresConnection: return "waiting for a connection"
            }
        }

        public static func interfaceNames(of path: NetworkPath) -> [String] {
            path.availableInterfaces.filter { $0.type != NetworkInterface.InterfaceType.loopback }.map(\.name)
        }
    }
#endif
