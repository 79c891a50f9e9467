import Foundation
import Testing
import TestSupport

/// `reach status` and `watch` with ModemManager and NetworkManager (python-dbusmock on a private bus) describing the
/// namespace's uplink `rn0` as a roaming LTE modem on a metered connection.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct RadioDetailsCLIInNamespaceTests {
    private static let modemManager = "org.freedesktop.ModemManager1"
    private static let modem = "/org/freedesktop/ModemManager1/Modems/8"
    private static let modemInterface = "org.freedesktop.ModemManager1.Modem"
    private static let mock = "org.freedesktop.DBus.Mock"

    /// Starts ModemManager with one modem whose network port is `rn0`, on LTE at 72 %, roaming; and NetworkManager
    /// with `rn0` as a metered Ethernet device.
    private func startServices(on bus: PrivateBus) throws {
        try bus.startService(Self.modemManager, template: "modemmanager")
        try bus.call(Self.modemManager, "/org/freedesktop/ModemManager1", Self.mock, "AddSimpleModem")
        try bus.call(
            Self.modemManager, Self.modem, Self.mock, "AddProperty",
            ["ssv", Self.modemInterface, "Ports", "a(su)", "1", "rn0", "2"])
        try bus.call(
            Self.modemManager, Self.modem, Self.mock, "AddProperty",
            ["ssv", "org.freedesktop.ModemManager1.Modem.Modem3gpp", "RegistrationState", "u", "5"])
        try bus.call(
            Self.modemManager, Self.modem, Self.mock, "UpdateProperties",
            ["sa{sv}", Self.modemInterface, "1", "SignalQuality", "(ub)", "72", "true"])
        let manager = "org.freedesktop.NetworkManager"
        try bus.startService(manager, template: "networkmanager")
        let device = "/org/freedesktop/NetworkManager/Devices/rn0dev"
        try bus.call(manager, "/org/freedesktop/NetworkManager", Self.mock, "AddEthernetDevice", ["ssi", "rn0dev", "rn0", "100"])
        try bus.call(
            manager, device, Self.mock, "AddProperty", ["ssv", "org.freedesktop.NetworkManager.Device", "Metered", "u", "1"])
    }

    @Test func statusShowsTheModemAndTheJSONHasItsKeys() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        let bus = try PrivateBus()
        defer { bus.remove() }
        try startServices(on: bus)
        let environment = ["env", "DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)", ReachBinary.path, "status"]

        let line = try network.run(environment)
        #expect(
            line.standardOutput.hasPrefix("internet: reachable via wiredEthernet rn0 (LTE, 72 %, roaming, metered), gateway "))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(network.run(environment + ["--json"]).standardOutput.utf8))
                as? [String: Any])
        #expect(json.string("radioTechnology") == "lte4G")
        #expect(json["accessTechnologies"] as? Int == 1 << 14)
        #expect((json["signal"] as? [String: Any])?["percent"] as? Int == 72)
        #expect(json.bool("isRoaming") == true && json.bool("isMetered") == true && json.bool("isExpensive") == true)
        #expect(json.string("systemConnectivity") == "full")

        // Without the services, no such keys, and --verbose says why
        bus.kill()
        let bare = try network.run(environment + ["--json", "--verbose"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bare.standardOutput.utf8)) as? [String: Any])
        for key in ["radioTechnology", "accessTechnologies", "signal", "isRoaming", "isMetered", "systemConnectivity"] {
            #expect(object[key] == nil, "\(key)")
        }
        #expect(object.bool("isExpensive") == false)
        #expect(bare.standardError.contains("radio details: system bus: not reachable at \(bus.address)"))
    }

    @Test func interfacesShowsEachInterfacesDetailsAsTextAndJSON() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let bus = try PrivateBus()
        defer { bus.remove() }
        try startServices(on: bus)
        let command = ["env", "DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)", ReachBinary.path, "interfaces"]

        let table = try network.run(command).standardOutput.split(separator: "\n").map(String.init)
        #expect(table.first?.contains("CARRIER  DETAILS") == true)
        let uplink = try #require(table.first { $0.contains(" rn0 ") })
        #expect(uplink.contains("LTE, 72 %, roaming, metered"))
        #expect(table.first { $0.contains(" lo ") }?.contains(" - ") == true)

        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(network.run(command + ["--json"]).standardOutput.utf8))
                as? [[String: Any]])
        let rn0 = try #require(json.first { $0.string("name") == "rn0" })
        #expect(rn0.string("radioTechnology") == "lte4G" && rn0.bool("isRoaming") == true && rn0.bool("isMetered") == true)
        #expect((rn0["signal"] as? [String: Any])?["percent"] as? Int == 72)
        #expect(rn0.string("systemConnectivity") == "full")
        let loopback = try #require(json.first { $0.string("name") == "lo" })
        #expect(loopback["radioTechnology"] == nil && loopback["isMetered"] == nil)

        // Without the services, no details: the table has no such column, and --verbose says why
        bus.kill()
        let bare = try network.run(command + ["--verbose"])
        #expect(bare.standardOutput.split(separator: "\n").first?.contains("DETAILS") == false)
        #expect(bare.standardError.contains("radio details: system bus: not reachable at \(bus.address)"))
    }

    @Test func watchPrintsOneLinePerChangeOfTechnology() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let bus = try PrivateBus()
        defer { bus.remove() }
        try startServices(on: bus)
        let output = LineCollector()
        _ = try network.start(["env", "DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)", ReachBinary.path, "watch"], output: output.pipe)
        #expect(output.waitForLine { $0.contains("(LTE, 72 %, roaming, metered)") } != nil)
        let before = output.linesAfterQuiet().count
        try bus.call(
            Self.modemManager, Self.modem, Self.mock, "UpdateProperties",
            ["sa{sv}", Self.modemInterface, "1", "AccessTechnologies", "u", "\(1 << 15 | 1 << 14)"])
        #expect(output.waitForLine { $0.contains("(5G, 72 %, roaming, metered)") } != nil)
        #expect(output.linesAfterQuiet().count == before + 1)
    }

    @Test func serveExportsTheModemsFactsAsSeriesOnlyWhileItHasThem() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let bus = try PrivateBus()
        defer { bus.remove() }
        try startServices(on: bus)
        let server = try ServeClient(
            ["internet", "--verbose"], in: network, environment: ["DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)"])
        defer { server.stop() }
        // --verbose says on stderr what was read, as `watch --verbose` does
        #expect(server.errors.lines.contains { $0.hasPrefix("radio details: ModemManager:") })
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            (try? server.samples(of: name))?.first { $0.labels == labels }?.value
        }
        #expect(eventually { value("reach_target_signal_ratio") == 0.72 })
        #expect(value("reach_target_roaming") == 1)
        #expect(value("reach_target_metered") == 1)
        #expect(value("reach_target_radio_technology", ["technology": "lte4G"]) == 1)
        #expect(value("reach_target_radio_technology", ["technology": "nr5G"]) == 0)
        #expect(value("reach_target_signal_dbm") == nil)  // nothing enabled ModemManager's readings in dBm

        // When the modem moves to 5G, the state set follows
        try bus.call(
            Self.modemManager, Self.modem, Self.mock, "UpdateProperties",
            ["sa{sv}", Self.modemInterface, "1", "AccessTechnologies", "u", "\(1 << 15 | 1 << 14)"])
        #expect(eventually { value("reach_target_radio_technology", ["technology": "nr5G"]) == 1 })
        #expect(value("reach_target_radio_technology", ["technology": "lte4G"]) == 0)

        // And when the services go, so do the series: nothing is known, and nothing says 0
        bus.kill()
        #expect(eventually { (try? server.samples(of: "reach_target_signal_ratio"))?.isEmpty == true })
        for name in ["reach_target_roaming", "reach_target_metered", "reach_target_radio_technology"] {
            #expect(try server.samples(of: name).isEmpty, "\(name)")
        }
        #expect(value("reach_target_reachable") == 1)
    }
}
