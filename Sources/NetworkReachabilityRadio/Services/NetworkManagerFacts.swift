import NetworkReachabilityCore

/// What NetworkManager's objects say of each device it manages: whether its connection is metered, the signal of the
/// access point a Wi-Fi device is associated with, and the manager's connectivity check.
enum NetworkManagerFacts {
    static let service = "org.freedesktop.NetworkManager"
    static let root = "/org/freedesktop"
    static let managerPath = "/org/freedesktop/NetworkManager"
    static let manager = "org.freedesktop.NetworkManager"
    static let device = "org.freedesktop.NetworkManager.Device"
    static let wireless = "org.freedesktop.NetworkManager.Device.Wireless"
    static let accessPoint = "org.freedesktop.NetworkManager.AccessPoint"

    /// Each device's details, by the interface that carries its IP traffic, and the manager's connectivity.
    static func devices(
        of objects: [String: ServiceMirror.Interfaces], reader: inout PropertyReader
    ) -> (devices: [String: LinkDetails], connectivity: SystemConnectivity?) {
        let connectivity = reader.read(
            "Connectivity", of: objects[Self.managerPath]?[Self.manager], at: Self.managerPath, expecting: "uint32"
        ) { $0.uint32 }.flatMap(Self.connectivity)
        var devices: [String: LinkDetails] = [:]
        for (path, interfaces) in objects.sorted(by: { $0.key < $1.key }) {
            guard let device = interfaces[Self.device],
                reader.read("State", of: device, at: path, expecting: "uint32", { $0.uint32 }) != Self.unmanaged,
                let name = interfaceName(of: device, at: path, reader: &reader), devices[name] == nil
            else { continue }
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
            devices[name] = LinkDetails(
                signal: strength.map { SignalStrength(percent: Int($0)) },
                isMetered: metered.flatMap { [1: true, 3: true, 2: false, 4: false][$0] },
                systemConnectivity: connectivity)
        }
        return (devices, connectivity)
    }

    /// The interface a device's IP traffic leaves through: `IpInterface` when NetworkManager sets it (a modem's
    /// `wwan0` or `ppp0` once connected), else `Interface` (for a modem, its control port: `cdc-wdm0`, `ttyUSB2`).
    private static func interfaceName(
        of device: ServiceMirror.Properties, at path: String, reader: inout PropertyReader
    ) -> String? {
        let ip = reader.read("IpInterface", of: device, at: path, expecting: "string") { $0.string }
        if let ip, !ip.isEmpty { return ip }
        let control = reader.read("Interface", of: device, at: path, expecting: "string") { $0.string }
        return control?.isEmpty == false ? control : nil
    }

    /// `NM_DEVICE_STATE_UNMANAGED`: a device NetworkManager lists but leaves alone, of which it says nothing.
    static let unmanaged: UInt32 = 10

    /// `NMConnectivityState`: 1 none, 2 portal, 3 limited, 4 full; 0 (unknown) and others are not known.
    static func connectivity(_ state: UInt32) -> SystemConnectivity? {
        [1: .none, 2: .portal, 3: .limited, 4: .full][state]
    }

    /// The summary's line: `connectivity full; 2 devices: eth0 (metered), wlan0 (80 %)`.
    static func line(devices: [String: LinkDetails], connectivity: SystemConnectivity?) -> String {
        let listed = devices.sorted { $0.key < $1.key }.map { name, details in
            var facts: [String] = []
            if let signal = details.signal { facts.append(signal.description) }
            if let metered = details.isMetered { facts.append(metered ? "metered" : "not metered") }
            return facts.isEmpty ? name : "\(name) (\(facts.joined(separator: ", ")))"
        }
        let count = "\(devices.count) device\(devices.count == 1 ? "" : "s")"
        return "connectivity \(connectivity?.rawValue ?? "unknown"); \(count)"
            + (listed.isEmpty ? "" : ": \(listed.joined(separator: ", "))")
    }
}
