import NetworkReachability

/// What NetworkManager's objects say of each device: whether its connection is metered, the signal of the access
/// point a Wi-Fi device is associated with, its interface index, and the manager's connectivity check.
enum NetworkManagerFacts {
    static let service = "org.freedesktop.NetworkManager"
    static let root = "/org/freedesktop"
    static let managerPath = "/org/freedesktop/NetworkManager"
    static let manager = "org.freedesktop.NetworkManager"
    static let device = "org.freedesktop.NetworkManager.Device"
    static let wireless = "org.freedesktop.NetworkManager.Device.Wireless"
    static let accessPoint = "org.freedesktop.NetworkManager.AccessPoint"

    /// One device's details, with its interface index where NetworkManager gives one.
    struct Device: Equatable {
        var details: LinkDetails
        var index: Int?
    }

    /// Each device's details, by interface name.
    static func devices(of objects: [String: ServiceMirror.Interfaces], reader: inout PropertyReader) -> [String: Device] {
        let connectivity = reader.read(
            "Connectivity", of: objects[Self.managerPath]?[Self.manager], at: Self.managerPath, expecting: "uint32"
        ) { $0.uint32 }.flatMap(Self.connectivity)
        var devices: [String: Device] = [:]
        for (path, interfaces) in objects.sorted(by: { $0.key < $1.key }) {
            guard let device = interfaces[Self.device],
                let name = reader.read("Interface", of: device, at: path, expecting: "string", { $0.string }), !name.isEmpty
            else { continue }
            let index = reader.read("Ifindex", of: device, at: path, expecting: "uint32") { $0.uint32 }
            let metered = reader.read("Metered", of: device, at: path, expecting: "uint32") { $0.uint32 }
            let accessPoint = reader.read("ActiveAccessPoint", of: interfaces[Self.wireless], at: path, expecting: "object path")
            {
                value -> String? in
                guard case .objectPath(let path) = value.unwrapped else { return nil }
                return path
            }
            let strength = accessPoint.flatMap { point in
                reader.read("Strength", of: objects[point]?[Self.accessPoint], at: point, expecting: "byte") { value -> UInt8? in
                    guard case .byte(let strength) = value.unwrapped else { return nil }
                    return strength
                }
            }
            devices[name] = Device(
                details: LinkDetails(
                    signal: strength.map { SignalStrength(percent: Int($0)) },
                    isMetered: metered.flatMap { [1: true, 3: true, 2: false, 4: false][$0] },
                    systemConnectivity: connectivity),
                index: index.flatMap { $0 == 0 ? nil : Int($0) })
        }
        return devices
    }

    /// `NMConnectivityState`: 1 none, 2 portal, 3 limited, 4 full; 0 (unknown) and others are not known.
    static func connectivity(_ state: UInt32) -> SystemConnectivity? {
        [1: .none, 2: .portal, 3: .limited, 4: .full][state]
    }
}
