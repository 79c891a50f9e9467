import NetworkReachabilityCore

/// What NetworkManager's objects say of each link it manages: whether its connection is metered, the signal of the
/// access point a Wi-Fi device is associated with, the connectivity check of the link (or of the host), and which
/// modem a modem device drives.
enum NetworkManagerFacts {
    static let service = "org.freedesktop.NetworkManager"
    static let root = "/org/freedesktop"
    static let managerPath = "/org/freedesktop/NetworkManager"
    static let manager = "org.freedesktop.NetworkManager"
    static let device = "org.freedesktop.NetworkManager.Device"
    static let wireless = "org.freedesktop.NetworkManager.Device.Wireless"
    static let accessPoint = "org.freedesktop.NetworkManager.AccessPoint"

    /// `NM_DEVICE_TYPE_MODEM`: a device driving a ModemManager modem; its `Udi` is the modem's object path.
    static let modemType: UInt32 = 8
    /// `NM_DEVICE_STATE_UNMANAGED`: a device NetworkManager lists but leaves alone, of which it says nothing.
    static let unmanaged: UInt32 = 10

    /// One device, as the link it names needs it.
    struct Device: Equatable {
        /// Its object path.
        var path: String
        /// The interface its IP traffic leaves through: `IpInterface` when set (a modem's `wwan0` or `ppp0` once
        /// connected), else `Interface` (for a modem, its control port: `cdc-wdm0`, `ttyUSB2`).
        var link: String
        /// Whether `Interface` itself names ``link``: the device is that link's own, not one that carries its IP
        /// over it.
        var ownsLink: Bool
        /// Whether `IpInterface` names ``link``: the device's IP traffic is up on it, not only its control port.
        var carriesIP: Bool
        /// `DeviceType` (`NMDeviceType`).
        var type: UInt32?
        /// `Udi`: for a modem device, ModemManager's modem object path.
        var udi: String?
        /// `Metered` (`NMMetered`): yes or guess-yes is metered, no or guess-no is not; unknown says nothing.
        var isMetered: Bool?
        /// The associated access point's `Strength`, for a Wi-Fi device.
        var signal: SignalStrength?
        /// The link's own check: the better of `Ip4Connectivity` and `Ip6Connectivity`; the manager's
        /// `Connectivity` where the device has neither property (NetworkManager before 1.16).
        var connectivity: SystemConnectivity?

        /// Whether the device drives a ModemManager modem.
        var isModem: Bool { type == NetworkManagerFacts.modemType }

        /// Whether ``link`` carries a modem's data: a modem device whose IP traffic is up on it.
        var carriesModemData: Bool { isModem && carriesIP }

        /// Whether the device is of a kind whose link the kernel cannot tell from a modem's: generic, tun, IP tunnel
        /// or PPP (`NMDeviceType` 14, 16, 17, 23), such as the external device NetworkManager makes for `ppp0`.
        var isOfUnclearKind: Bool { type.map { [14, 16, 17, 23].contains($0) } ?? true }

        /// How strongly the device speaks for its link, strongest first: a modem device (the link carries the
        /// modem's data, whatever device NetworkManager made for the link itself), then the link's own device, then
        /// one that only carries its IP over it.
        var rank: Int { isModem ? 0 : ownsLink ? 1 : 2 }
    }

    /// Every managed device that names a link, and the manager's connectivity.
    static func devices(
        of objects: [String: ServiceMirror.Interfaces], reader: inout PropertyReader
    ) -> (devices: [Device], connectivity: SystemConnectivity?) {
        let connectivity = reader.read(
            "Connectivity", of: objects[Self.managerPath]?[Self.manager], at: Self.managerPath, expecting: "uint32"
        ) { $0.uint32 }.flatMap(Self.connectivity)
        var devices: [Device] = []
        for (path, interfaces) in objects {
            guard let device = interfaces[Self.device],
                reader.read("State", of: device, at: path, expecting: "uint32", { $0.uint32 }) != Self.unmanaged
            else { continue }
            let string = { (name: String, reader: inout PropertyReader) -> String? in
                reader.read(name, of: device, at: path, expecting: "string") { $0.string }.flatMap { $0.isEmpty ? nil : $0 }
            }
            let control = string("Interface", &reader)
            let ip = string("IpInterface", &reader)
            guard let link = ip ?? control else { continue }
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
            let perFamily = ["Ip4Connectivity", "Ip6Connectivity"].map { name in
                (name, reader.read(name, of: device, at: path, expecting: "uint32") { $0.uint32 })
            }
            let hasPerFamily = perFamily.contains { device[$0.0] != nil }
            // NMConnectivityState orders them: none, portal, limited, full
            let linkConnectivity = perFamily.compactMap(\.1).filter { Self.connectivity($0) != nil }.max()
                .flatMap(Self.connectivity)
            devices.append(
                Device(
                    path: path, link: link, ownsLink: control == link, carriesIP: ip != nil,
                    type: reader.read("DeviceType", of: device, at: path, expecting: "uint32") { $0.uint32 },
                    udi: string("Udi", &reader), isMetered: metered.flatMap { [1: true, 3: true, 2: false, 4: false][$0] },
                    signal: strength.map { SignalStrength(percent: Int($0)) },
                    connectivity: hasPerFamily ? linkConnectivity : connectivity))
        }
        return (devices, connectivity)
    }

    /// Each link's details from the devices that name it: the strongest device speaks for it (``Device/rank``; among
    /// equals, the one NetworkManager made first), and where two disagree about metered, the link is metered, the
    /// costlier answer. Of a link in `modemLinks` (one that carries a modem's data) only a modem device may say it is
    /// not metered: the external device NetworkManager makes for `ppp0` guesses no from its kind, and is alone while
    /// the modem device is gone (NetworkManager restarting) or not yet joined. With `unnamedAreModems` (a modem's PPP
    /// link is not named) so is every link whose device is of an unclear kind.
    static func links(
        of devices: [Device], modemLinks: Set<String> = [], unnamedAreModems: Bool = false
    ) -> [String: LinkDetails] {
        var links: [String: LinkDetails] = [:]
        for (link, named) in Dictionary(grouping: devices, by: \.link) {
            let ordered = named.sorted { ($0.rank, objectNumber($0.path)) < ($1.rank, objectNumber($1.path)) }
            let isModems = modemLinks.contains(link) || (unnamedAreModems && ordered.allSatisfy(\.isOfUnclearKind))
            let said = ordered.filter { $0.isModem || $0.isMetered == true || !isModems }
            let metered = said.compactMap(\.isMetered)
            links[link] = LinkDetails(
                signal: ordered.lazy.compactMap(\.signal).first,
                isMetered: metered.isEmpty ? nil : metered.contains(true),
                systemConnectivity: ordered.lazy.compactMap(\.connectivity).first)
        }
        return links
    }

    /// The number that ends an object path (`…/Devices/10` is 10), by which NetworkManager numbers its objects in
    /// the order it makes them; `Int.max` for a path without one.
    private static func objectNumber(_ path: String) -> Int {
        path.split(separator: "/").last.flatMap { Int($0) } ?? .max
    }

    /// `NMConnectivityState`: 1 none, 2 portal, 3 limited, 4 full; 0 (unknown) and others are not known.
    static func connectivity(_ state: UInt32) -> SystemConnectivity? {
        [1: .none, 2: .portal, 3: .limited, 4: .full][state]
    }

    /// The summary's line: `connectivity full; 2 devices: eth0 (metered), wlan0 (80 %)`.
    static func line(links: [String: LinkDetails], connectivity: SystemConnectivity?) -> String {
        let listed = links.sorted { $0.key < $1.key }.map { name, details in
            var facts: [String] = []
            if let signal = details.signal { facts.append(signal.description) }
            if let metered = details.isMetered { facts.append(metered ? "metered" : "not metered") }
            if let own = details.systemConnectivity, own != connectivity { facts.append("connectivity \(own.rawValue)") }
            return facts.isEmpty ? name : "\(name) (\(facts.joined(separator: ", ")))"
        }
        let count = "\(links.count) device\(links.count == 1 ? "" : "s")"
        return "connectivity \(connectivity?.rawValue ?? "unknown"); \(count)"
            + (listed.isEmpty ? "" : ": \(listed.joined(separator: ", "))")
    }
}
