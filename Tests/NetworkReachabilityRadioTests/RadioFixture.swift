import Foundation
import Logging
import NetworkReachabilityKit
import NetworkReachabilityTesting
import TestSupport

@testable import NetworkReachabilityRadio

/// A private bus with python-dbusmock's ModemManager and NetworkManager on it, and a simulated network whose
/// interfaces they describe: `wwan0` (cellular, the default route), `eth0` and `wlan0`.
final class RadioFixture: @unchecked Sendable {
    static let modemManager = ModemManagerFacts.service
    static let modemManagerRoot = ModemManagerFacts.root
    static let modem = "/org/freedesktop/ModemManager1/Modems/8"  // the template's
    static let modemInterface = ModemManagerFacts.modem
    static let modem3gpp = ModemManagerFacts.modem3gpp
    static let networkManager = NetworkManagerFacts.service
    static let networkManagerPath = NetworkManagerFacts.managerPath
    static let device = NetworkManagerFacts.device
    static let accessPoint = NetworkManagerFacts.accessPoint
    static let mock = "org.freedesktop.DBus.Mock"
    static let lte: UInt32 = 1 << 14
    static let nr: UInt32 = 1 << 15
    static let hspa: UInt32 = 1 << 8

    let bus: PrivateBus
    let network = SimulatedNetwork()
    let messages = Recorder<String>()
    private let lock = NSLock()
    private var readers: [RadioDetails] = []  // guarded by `lock`; stopped by `deinit`

    init() throws {
        bus = try PrivateBus()
        try network.addInterface("wwan0", type: .cellular, isPointToPoint: true)
        try network.addAddress("10.64.0.2/30", to: "wwan0")
        try network.addRoute(to: "default", interface: "wwan0")
        try network.addInterface("eth0")
        try network.addAddress("192.168.1.20/24", to: "eth0")
        try network.addInterface("wlan0", type: .wifi)
        try network.addAddress("192.168.2.20/24", to: "wlan0")
    }

    deinit {
        for reader in lock.withLock({ readers }) { reader.stop() }
        bus.remove()
    }

    /// How long the fixture's readers keep a lost fact: long enough for a mock's signals that announce one change in
    /// several steps, short enough that a test waits little for a loss to be heard.
    static let settleWindow = Duration.milliseconds(300)

    /// A reader of the bus (the private one unless told) for the simulated network (or `monitor`'s), logging into
    /// ``messages``.
    func reader(
        callTimeout: Duration = .seconds(5), settleWindow: Duration = RadioFixture.settleWindow, busAddress: String? = nil,
        monitor: ReachabilityMonitor? = nil
    ) -> RadioDetails {
        let messages = messages
        let reader = RadioDetails(
            busAddress: busAddress ?? bus.address, monitor: monitor ?? network.monitor, callTimeout: callTimeout,
            settleWindow: settleWindow, logger: Logger(label: "radio") { _ in RecordingLogHandler(messages) })
        lock.withLock { readers.append(reader) }
        return reader
    }

    /// ModemManager with its modem on LTE at 72 %, at home, read by a reader; and the internet's updates, whose
    /// first snapshot carries the modem's details.
    func listeningToModem() throws -> (RadioDetails, NetworkReachability, AsyncStream<ReachabilitySnapshot>.Iterator) {
        try startModemManager()
        let reader = reader()
        guard reader.waitUntilRead(timeout: .seconds(10)) else {
            throw CommandError(
                command: ["RadioDetails"], result: CommandResult(status: 1, standardOutput: "", standardError: "no first read"))
        }
        let reachability = try NetworkReachability(network: network)
        return (reader, reachability, reachability.updates.makeAsyncIterator())
    }

    /// Starts ModemManager with one modem whose network port is `wwan0`, registered at home.
    func startModemManager(technologies: UInt32 = lte, quality: UInt32 = 72) throws {
        try bus.startService(Self.modemManager, template: "modemmanager")
        try bus.call(Self.modemManager, Self.modemManagerRoot, Self.mock, "AddSimpleModem")
        try bus.call(
            Self.modemManager, Self.modem, Self.mock, "AddProperty",
            ["ssv", Self.modemInterface, "Ports", "a(su)", "2", "cdc-wdm0", "3", "wwan0", "2"])
        try bus.call(
            Self.modemManager, Self.modem, Self.mock, "AddProperty", ["ssv", Self.modem3gpp, "RegistrationState", "u", "1"])
        // Announced again, so that a reader already listening hears the properties added without a signal
        try updateModem(
            Self.modemInterface,
            [
                ["Ports", "a(su)", "2", "cdc-wdm0", "3", "wwan0", "2"], ["AccessTechnologies", "u", "\(technologies)"],
                ["SignalQuality", "(ub)", "\(quality)", "true"],
            ])
        try updateModem(Self.modem3gpp, [["RegistrationState", "u", "1"]])
    }

    /// Changes the modem's properties on `interface`, which emits `PropertiesChanged`: each entry is busctl's words
    /// for one, its name, type and value (`["AccessTechnologies", "u", "16384"]`).
    func updateModem(_ interface: String, _ entries: [[String]]) throws {
        try updateProperties(of: Self.modem, in: Self.modemManager, interface, entries)
    }

    /// Changes `path`'s properties on `interface` in NetworkManager's mock.
    func updateNetworkManager(_ path: String, _ interface: String, _ entries: [[String]]) throws {
        try updateProperties(of: path, in: Self.networkManager, interface, entries)
    }

    private func updateProperties(of path: String, in service: String, _ interface: String, _ entries: [[String]]) throws {
        try bus.call(
            service, path, Self.mock, "UpdateProperties", ["sa{sv}", interface, "\(entries.count)"] + entries.flatMap { $0 })
    }

    /// Starts NetworkManager with an Ethernet device `eth0` whose `Metered` is `metered`, and a Wi-Fi device `wlan0`
    /// associated with an access point of `strength`; the manager's connectivity is full. Returns the access point's
    /// path.
    @discardableResult
    func startNetworkManager(metered: UInt32 = 2, strength: UInt8 = 80) throws -> String {
        try bus.startService(Self.networkManager, template: "networkmanager")
        let ethernet = try Self.path(
            bus.call(
                Self.networkManager, Self.networkManagerPath, Self.mock, "AddEthernetDevice", ["ssi", "eth0dev", "eth0", "100"]))
        try bus.call(Self.networkManager, ethernet, Self.mock, "AddProperty", ["ssv", Self.device, "Metered", "u", "\(metered)"])
        try updateNetworkManager(ethernet, Self.device, [["Metered", "u", "\(metered)"]])
        let wifi = try Self.path(
            bus.call(
                Self.networkManager, Self.networkManagerPath, Self.mock, "AddWiFiDevice", ["ssi", "wlan0dev", "wlan0", "100"]))
        let point = try Self.path(
            bus.call(
                Self.networkManager, Self.networkManagerPath, Self.mock, "AddAccessPoint",
                ["ssssuuuyu", wifi, "ap0", "home", "11:22:33:44:55:66", "2", "2412", "54000", "\(strength)", "0"]))
        let wireless = "org.freedesktop.NetworkManager.Device.Wireless"
        // Added without a signal (dbusmock cannot announce an object path): start readers after this
        try bus.call(Self.networkManager, wifi, Self.mock, "AddProperty", ["ssv", wireless, "ActiveAccessPoint", "o", point])
        return point
    }

    static let ethernet = "/org/freedesktop/NetworkManager/Devices/eth0dev"  // the template's, named by the above

    /// The object path busctl printed as `s "/…"` or `ss "/…" "/…"` (the first).
    private static func path(_ output: String) -> String {
        output.split(separator: "\"").dropFirst().first.map(String.init) ?? ""
    }
}

extension AsyncStream<ReachabilitySnapshot>.Iterator {
    /// The next snapshot that meets `condition`, skipping those before it: for set-ups that announce a service's
    /// properties in more than one signal.
    mutating func next(where condition: (ReachabilitySnapshot) -> Bool) async -> ReachabilitySnapshot? {
        while let snapshot = await next() {
            if condition(snapshot) { return snapshot }
        }
        return nil
    }
}
