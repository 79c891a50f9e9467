import Foundation
import Logging
import NetworkReachabilityKit
import NetworkReachabilityTesting
import Testing
import TestSupport

@testable import NetworkReachabilityRadio

/// How the reader matches the services' objects to interfaces as the real daemons lay them out, asks a service again
/// that did not answer, keeps facts lost for a moment, and ignores everyone on the bus but the services (python-dbusmock
/// on a private bus). The real daemons themselves are in `RealNetworkManagerInNamespaceTests` and its neighbours.
@Suite(.ownThread(timeLimit: .seconds(120)))
struct RadioServicesOnBusTests {
    private static let device = "org.freedesktop.NetworkManager.Device"
    private static let bearerPath = "/org/freedesktop/ModemManager1/Bearer/0"

    @Test func networkManagersDeviceIsTheInterfaceThatCarriesItsIPNotItsControlPort() async throws {
        // Given a modem as NetworkManager lists it: its control port cdc-wdm0, carrying IP on wwan0, metered
        let fixture = try RadioFixture()
        try fixture.bus.startService(RadioFixture.networkManager, template: "networkmanager")
        try fixture.bus.call(
            RadioFixture.networkManager, RadioFixture.networkManagerPath, RadioFixture.mock, "AddEthernetDevice",
            ["ssi", "modemdev", "cdc-wdm0", "100"])
        let modem = "/org/freedesktop/NetworkManager/Devices/modemdev"
        try fixture.bus.call(
            RadioFixture.networkManager, modem, RadioFixture.mock, "AddProperty", ["ssv", Self.device, "Metered", "u", "1"])
        try fixture.updateNetworkManager(modem, Self.device, [["IpInterface", "s", "wwan0"]])
        let reader = fixture.reader()
        #expect(reader.waitUntilRead(timeout: .seconds(10)))
        // Then the cellular path has NetworkManager's facts
        let reachability = try NetworkReachability(network: fixture.network)
        var updates = reachability.updates.makeAsyncIterator()
        let first = try #require(await updates.next()?.path)
        #expect(first.interface?.name == "wwan0" && first.details?.isMetered == true)
        #expect(first.details?.systemConnectivity == .full)

        // When the connection goes down (IpInterface empty), only the control port is named: wwan0 loses them
        try fixture.updateNetworkManager(modem, Self.device, [["IpInterface", "s", ""]])
        #expect(await updates.next()?.path.details == nil)
        #expect(reader.summary.contains { $0.contains("cdc-wdm0") })
    }

    @Test func aPPPModemsFactsReachPPP0ThroughNetworkManagersModemDeviceAndMakeItCellular() async throws {
        // Given an AT modem on LTE (one port, ttyUSB2, no net port), NetworkManager's modem device for it (metered
        // guess-yes), and a PPP link ppp0 that routes 203.0.113.0/24, which the kernel calls `other`
        let fixture = try RadioFixture()
        try Self.addPPPLink(to: fixture)
        try fixture.bus.startService(RadioFixture.modemManager, template: "modemmanager")
        try fixture.bus.call(RadioFixture.modemManager, RadioFixture.modemManagerRoot, RadioFixture.mock, "AddSimpleModem")
        for (name, type, value) in [("Ports", "a(su)", ["1", "ttyUSB2", "3"]), ("Bearers", "ao", ["0"])] {
            try fixture.bus.call(
                RadioFixture.modemManager, RadioFixture.modem, RadioFixture.mock, "AddProperty",
                ["ssv", RadioFixture.modemInterface, name, type] + value)
        }
        try fixture.bus.startService(RadioFixture.networkManager, template: "networkmanager")
        let modemDevice = try Self.addDevice(
            "9", interface: "ttyUSB2", type: 8, metered: 3, udi: RadioFixture.modem, to: fixture)
        let reader = fixture.reader()
        #expect(reader.waitUntilRead(timeout: .seconds(10)))
        #expect(reader.summary.contains("ModemManager: modem 8 (no data interface): LTE, 70 %"))
        let address = try IPAddress("203.0.113.9")
        let link = try NetworkReachability(target: .address(address), network: fixture.network)
        let noCellular = try NetworkReachability(
            target: .restricted(.address(address), InterfaceRestriction(prohibitedTypes: [.cellular])),
            network: fixture.network)
        var updates = link.updates.makeAsyncIterator()
        let before = try #require(await updates.next()?.path)
        #expect(before.details == nil && before.interface?.type == .other)

        // When ModemManager connects a PPP bearer, which names its tty (outside its object manager, as the real daemon
        // exports bearers); NetworkManager's modem device gets ppp0 as its IP interface, and NetworkManager makes an
        // external device for ppp0 (metered guess-no) whose path sorts before the modem device's as text
        try Self.addConnectedBearer(interface: "ttyUSB2", method: 1, to: fixture)
        try fixture.updateModem(RadioFixture.modemInterface, [["Bearers", "ao", "1", Self.bearerPath]])
        try fixture.updateNetworkManager(modemDevice, Self.device, [["IpInterface", "s", "ppp0"]])
        _ = try Self.addDevice("10", interface: "ppp0", type: 16, metered: 4, udi: "", to: fixture)

        // Then ppp0's path has the modem's facts, is cellular (WWAN, expensive) and metered, and a target that
        // prohibits cellular does not take it
        let connected = try #require(await updates.next { $0.path.details?.isMetered != nil })
        #expect(connected.path.interface?.name == "ppp0" && connected.path.interface?.type == .cellular)
        #expect(connected.path.details?.radioTechnology == .lte4G && connected.path.details?.isMetered == true)
        #expect(connected.status == .reachable(.cellular) && connected.flags.contains(.isWWAN) && connected.path.isExpensive)
        #expect(try noCellular.currentSnapshot().status == .notReachable)
        #expect(try noCellular.currentSnapshot().path.reason == .prohibitedInterfaceType)
        #expect(reader.summary.contains("ModemManager: modem 8 on ppp0: LTE, 70 %"))

        // And when the connection goes down, ppp0 loses the facts and is `other` again, both at once
        try fixture.updateNetworkManager(modemDevice, Self.device, [["IpInterface", "s", ""]])
        try fixture.bus.call(
            RadioFixture.modemManager, Self.bearerPath, RadioFixture.mock, "UpdateProperties",
            ["sa{sv}", ModemManagerFacts.bearer, "2", "Connected", "b", "false", "Interface", "s", ""])
        let down = try #require(
            await updates.next { $0.path.details?.radioTechnology == nil && $0.path.details?.isMetered != nil })
        #expect(down.path.interface?.type == .other && down.path.details?.isMetered == false)
        #expect(down.status == .reachable(.ethernetOrWiFi))
    }

    @Test func aPPPModemsLinkIsCellularFromItsFirstMomentAndWhileNetworkManagerRestarts() async throws {
        // Given an AT modem on LTE whose PPP bearer is connected on ttyUSB2, and a new link ppp0 (`other` to the
        // kernel) that no service has named yet: NetworkManager names it a moment after pppd made it
        let fixture = try RadioFixture()
        try Self.addPPPLink(to: fixture)
        try fixture.bus.startService(RadioFixture.modemManager, template: "modemmanager")
        try fixture.bus.call(RadioFixture.modemManager, RadioFixture.modemManagerRoot, RadioFixture.mock, "AddSimpleModem")
        try Self.addConnectedBearer(interface: "ttyUSB2", method: 1, to: fixture)
        try fixture.bus.call(
            RadioFixture.modemManager, RadioFixture.modem, RadioFixture.mock, "AddProperty",
            ["ssv", RadioFixture.modemInterface, "Bearers", "ao", "1", Self.bearerPath])
        let reader = fixture.reader()
        #expect(reader.waitUntilRead(timeout: .seconds(10)))
        // Then ppp0 is taken as the modem's at once, the costlier answer; Ethernet stays Ethernet
        let link = try NetworkReachability(address: "203.0.113.9", network: fixture.network)
        #expect(try link.currentSnapshot().path.interface?.type == .cellular)
        #expect(try link.currentSnapshot().path.isExpensive)
        let ethernet = try NetworkReachability(address: "192.168.1.1", network: fixture.network)
        #expect(try ethernet.currentSnapshot().path.interface?.type == .wiredEthernet)

        // When NetworkManager names it, then stops (its modem device gone), though pppd and ModemManager's bearer stay
        try fixture.bus.startService(RadioFixture.networkManager, template: "networkmanager")
        let device = try Self.addDevice("9", interface: "ttyUSB2", type: 8, metered: 3, udi: RadioFixture.modem, to: fixture)
        try fixture.updateNetworkManager(device, Self.device, [["IpInterface", "s", "ppp0"]])
        var updates = link.updates.makeAsyncIterator()
        #expect(await updates.next { $0.path.details?.isMetered == true && $0.path.details?.radioTechnology == .lte4G } != nil)
        fixture.bus.stopService(RadioFixture.networkManager)
        // Then, past the settle window, ppp0 is still the modem's: cellular, with its facts, and expensive
        let gone = try #require(await updates.next { $0.path.details?.isMetered == nil })
        #expect(gone.path.interface?.type == .cellular && gone.path.details?.radioTechnology == .lte4G && gone.path.isExpensive)
    }

    @Test func networkManagersModemDeviceAloneMakesItsLinkCellular() async throws {
        // Given NetworkManager's modem device carrying IP on ppp0 (guess-yes), and no ModemManager on the bus
        let fixture = try RadioFixture()
        try Self.addPPPLink(to: fixture)
        try fixture.bus.startService(RadioFixture.networkManager, template: "networkmanager")
        let device = try Self.addDevice("9", interface: "ttyUSB2", type: 8, metered: 3, udi: RadioFixture.modem, to: fixture)
        try fixture.updateNetworkManager(device, Self.device, [["IpInterface", "s", "ppp0"]])
        let reader = fixture.reader()
        #expect(reader.waitUntilRead(timeout: .seconds(10)))
        // Then ppp0 is cellular and metered, on NetworkManager's word
        let path = try NetworkReachability(address: "203.0.113.9", network: fixture.network).currentSnapshot().path
        #expect(path.interface?.type == .cellular && path.details?.isMetered == true, "\(path)")
    }

    @Test func aMultiplexedBearersOwnInterfaceHasItsModemsFacts() async throws {
        // Given a modem whose connected bearer has a data interface of its own (wwan0.1), not its tty
        let fixture = try RadioFixture()
        try fixture.bus.startService(RadioFixture.modemManager, template: "modemmanager")
        try fixture.bus.call(RadioFixture.modemManager, RadioFixture.modemManagerRoot, RadioFixture.mock, "AddSimpleModem")
        try Self.addConnectedBearer(interface: "wwan0.1", method: 3, to: fixture)
        try fixture.bus.call(
            RadioFixture.modemManager, RadioFixture.modem, RadioFixture.mock, "AddProperty",
            ["ssv", RadioFixture.modemInterface, "Bearers", "ao", "1", Self.bearerPath])
        // When a reader starts, its first read ends only once the bearer was read: at once, the link has the facts,
        // every time (the bearer's answer comes a moment after the modem's)
        var complete = 0
        for _ in 0..<10 {
            let network = SimulatedNetwork()
            try network.addInterface("wwan0.1", type: .cellular, isPointToPoint: true)
            try network.addAddress("10.66.0.2/32", to: "wwan0.1")
            try network.addRoute(to: "203.0.113.0/24", interface: "wwan0.1")
            let reader = fixture.reader(monitor: network.monitor)
            #expect(reader.waitUntilRead(timeout: .seconds(10)))
            let link = try NetworkReachability(address: "203.0.113.9", network: network)
            if try link.currentSnapshot().path.details?.radioTechnology == .lte4G { complete += 1 }
            #expect(reader.summary.contains("ModemManager: modem 8 on wwan0.1: LTE, 70 %"))
        }
        #expect(complete == 10)
    }

    /// Adds ppp0 to the fixture's network, a point-to-point link (`other` to the kernel) that routes 203.0.113.0/24.
    private static func addPPPLink(to fixture: RadioFixture) throws {
        try fixture.network.addInterface("ppp0", type: .other, isPointToPoint: true)
        try fixture.network.addAddress("10.65.0.2/32", to: "ppp0")
        try fixture.network.addRoute(to: "203.0.113.0/24", interface: "ppp0")
    }

    /// Adds ModemManager's connected bearer at ``bearerPath``, naming `interface`, with `Ip4Config.method` `method`
    /// (1 ppp, 3 static), outside the object manager as the real daemon exports bearers; the modem's `Bearers` is the
    /// caller's to set.
    private static func addConnectedBearer(interface: String, method: UInt32, to fixture: RadioFixture) throws {
        try fixture.bus.call(
            RadioFixture.modemManager, RadioFixture.modemManagerRoot, RadioFixture.mock, "AddObject",
            [
                "ssa{sv}a(ssss)", Self.bearerPath, ModemManagerFacts.bearer, "3", "Interface", "s", interface, "Connected",
                "b", "true", "Ip4Config", "a{sv}", "1", "method", "u", "\(method)", "0",
            ])
    }

    /// Adds a NetworkManager device `name` for `interface` of `type` (`NMDeviceType`), `metered` (`NMMetered`), whose
    /// `Udi` is `udi`; returns its path.
    private static func addDevice(
        _ name: String, interface: String, type: UInt32, metered: UInt32, udi: String, to fixture: RadioFixture
    ) throws -> String {
        try fixture.bus.call(
            RadioFixture.networkManager, RadioFixture.networkManagerPath, RadioFixture.mock, "AddEthernetDevice",
            ["ssi", name, interface, "100"])
        let path = "/org/freedesktop/NetworkManager/Devices/\(name)"
        for (property, value) in [("Metered", ["u", "\(metered)"]), ("Udi", ["s", udi])] {
            try fixture.bus.call(
                RadioFixture.networkManager, path, RadioFixture.mock, "AddProperty", ["ssv", Self.device, property] + value)
        }
        try fixture.updateNetworkManager(
            path, Self.device, [["DeviceType", "u", "\(type)"], ["Metered", "u", "\(metered)"], ["Udi", "s", udi]])
        return path
    }

    @Test func aServiceWhoseLoadFailsIsAskedAgainUntilItAnswers() async throws {
        // Given a NetworkManager whose object manager refuses the first call, then answers
        let fixture = try RadioFixture()
        try fixture.bus.startService(
            RadioFixture.networkManager, template: nil, object: "/org/freedesktop",
            interface: "org.freedesktop.DBus.ObjectManager")
        let code = """
            self.calls = getattr(self, 'calls', 0) + 1
            if self.calls == 1: raise dbus.exceptions.DBusException('busy', name='org.freedesktop.DBus.Error.Failed')
            ret = {'/org/freedesktop/NetworkManager/Devices/1': {'\(Self.device)': {'Interface': 'wwan0', \
            'IpInterface': '', 'Metered': dbus.UInt32(1), 'State': dbus.UInt32(100)}}}
            """
        try fixture.bus.call(
            RadioFixture.networkManager, "/org/freedesktop", RadioFixture.mock, "AddMethod",
            ["sssss", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", "", "a{oa{sa{sv}}}", code])
        // When a reader starts, the first read ends with the failure, and says when it asks again
        let reader = fixture.reader()
        #expect(reader.waitUntilRead(timeout: .seconds(10)))
        #expect(
            reader.summary.contains(
                "NetworkManager: answered GetManagedObjects with org.freedesktop.DBus.Error.Failed: busy; asking again in 1 s"))
        // Then a second later it has asked again, and the facts arrive
        let reachability = try NetworkReachability(network: fixture.network)
        var updates = reachability.updates.makeAsyncIterator()
        #expect(await updates.next { $0.path.details?.isMetered == true } != nil)
        #expect(reader.summary.contains("NetworkManager: connectivity unknown; 1 device: wwan0 (metered)"))
    }

    @Test func aFactLostForAMomentIsKeptAndOneLostForLongerIsHeardAfterTheWindow() async throws {
        // Given Ethernet metered and connectivity full, and a reader that keeps lost facts for 1.5 s
        let fixture = try RadioFixture()
        try fixture.startNetworkManager(metered: 1)
        let window = Duration.milliseconds(1500)
        let reader = fixture.reader(settleWindow: window)
        #expect(reader.waitUntilRead(timeout: .seconds(10)))
        let ethernet = try NetworkReachability(address: "192.168.1.1", network: fixture.network)
        var updates = ethernet.updates.makeAsyncIterator()
        #expect(await updates.next()?.path.details?.isMetered == true)

        // When NetworkManager re-activates: metered unknown and connectivity none, then back, within the window
        try fixture.updateNetworkManager(RadioFixture.ethernet, RadioFixture.device, [["Metered", "u", "0"]])
        try fixture.updateNetworkManager(
            RadioFixture.networkManagerPath, RadioFixture.networkManager, [["Connectivity", "u", "1"]])
        try fixture.updateNetworkManager(RadioFixture.ethernet, RadioFixture.device, [["Metered", "u", "1"]])
        try fixture.updateNetworkManager(
            RadioFixture.networkManagerPath, RadioFixture.networkManager, [["Connectivity", "u", "4"]])
        // Then nothing is heard of it: the next update is the next real change, a portal
        try fixture.updateNetworkManager(
            RadioFixture.networkManagerPath, RadioFixture.networkManager, [["Connectivity", "u", "2"]])
        let portal = try #require(await updates.next()?.path.details)
        #expect(portal.systemConnectivity == .portal && portal.isMetered == true)

        // When metered stays unknown, it is heard, once the window has passed
        let lost = ContinuousClock.now
        try fixture.updateNetworkManager(RadioFixture.ethernet, RadioFixture.device, [["Metered", "u", "0"]])
        let unknown = try #require(await updates.next()?.path)
        #expect(unknown.details?.isMetered == nil && unknown.details?.systemConnectivity == .portal)
        #expect(ContinuousClock.now - lost >= window)
    }

    @Test func aSignalFromAnyoneButTheServiceIsIgnoredAndTheServiceIsStillHeard() async throws {
        // Given a reader following a modem on LTE
        let fixture = try RadioFixture()
        let (_, reachability, iterator) = try fixture.listeningToModem()
        defer { withExtendedLifetime(reachability) {} }
        var updates = iterator
        #expect(await updates.next()?.path.details?.radioTechnology == .lte4G)
        let name = try #require(try fixture.bus.connections(ofProcess: getpid()).first)

        // When another connection sends the reader the modem's PropertiesChanged, saying 5G
        try Command.run(
            [
                "busctl", "--address=\(fixture.bus.address)", "emit", "--destination=\(name)", RadioFixture.modem,
                "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as", RadioFixture.modemInterface, "1",
                "AccessTechnologies", "u", "\(RadioFixture.nr)", "0",
            ], check: true)
        // Then it is not taken: the next change heard is ModemManager's own, to 3G
        try fixture.updateModem(RadioFixture.modemInterface, [["AccessTechnologies", "u", "\(RadioFixture.hspa)"]])
        #expect(await updates.next()?.path.details?.radioTechnology == .umts3G)
    }

    @Test func aSignalTooLongToTakeHasTheServiceReadWholeAgain() async throws {
        // Given a modem on wwan0 whose registration the reader does not know
        let fixture = try RadioFixture()
        try fixture.bus.startService(RadioFixture.modemManager, template: "modemmanager")
        try fixture.bus.call(RadioFixture.modemManager, RadioFixture.modemManagerRoot, RadioFixture.mock, "AddSimpleModem")
        try fixture.bus.call(
            RadioFixture.modemManager, RadioFixture.modem, RadioFixture.mock, "AddProperty",
            ["ssv", RadioFixture.modemInterface, "Ports", "a(su)", "1", "wwan0", "2"])
        let reader = fixture.reader()
        #expect(reader.waitUntilRead(timeout: .seconds(10)))
        let reachability = try NetworkReachability(network: fixture.network)
        var updates = reachability.updates.makeAsyncIterator()
        #expect(await updates.next()?.path.details?.isRoaming == nil)

        // When it starts roaming without a signal, then sends a PropertiesChanged of 2 MiB
        try fixture.bus.call(
            RadioFixture.modemManager, RadioFixture.modem, RadioFixture.mock, "AddProperty",
            ["ssv", RadioFixture.modem3gpp, "RegistrationState", "u", "5"])
        let emit = """
            import dbus, sys
            modem = dbus.bus.BusConnection(sys.argv[1]).get_object(sys.argv[2], sys.argv[3])
            modem.EmitSignal('org.freedesktop.DBus.Properties', 'PropertiesChanged', 'sa{sv}as',
                ['\(RadioFixture.modemInterface)', {'Junk': dbus.ByteArray(bytes(2 << 20))}, dbus.Array([], signature='s')],
                dbus_interface='\(RadioFixture.mock)')
            """
        try Command.run(
            ["/usr/bin/python3", "-c", emit, fixture.bus.address, RadioFixture.modemManager, RadioFixture.modem], check: true)
        // Then the reader reads the service whole again, and learns what it had missed
        #expect(await updates.next()?.path.details?.isRoaming == true)
        #expect(fixture.messages.values.contains("ModemManager sent a signal over 1048576 bytes; reading it whole again"))
    }

    @Test func aBusThatDoesNotAnswerIsAskedAgainUntilItDoes() async throws {
        // Given ModemManager with a modem, and its bus frozen while a reader starts
        let fixture = try RadioFixture()
        try fixture.startModemManager()
        fixture.bus.freeze(true)
        defer { fixture.bus.freeze(false) }
        let reader = fixture.reader(callTimeout: .milliseconds(300))
        // Then the first attempt ends without the bus, saying why
        #expect(reader.waitUntilRead(timeout: .seconds(10)))
        #expect(reader.summary.first?.contains("no answer to AUTH EXTERNAL within 300 ms") == true, "\(reader.summary)")
        // When the bus continues, the reader asks again (after 1 s) and the modem's facts arrive
        fixture.bus.freeze(false)
        let reachability = try NetworkReachability(network: fixture.network)
        var updates = reachability.updates.makeAsyncIterator()
        #expect(await updates.next { $0.path.details?.radioTechnology == .lte4G } != nil)
    }

    @Test func aServiceWhoseNameAnotherUserOwnsIsNotTakenAtItsWord() async throws {
        // Given a bus whose policy lets anyone own any name, where a process of `nobody` owns NetworkManager's and
        // says eth0 is not metered, on full connectivity
        let fixture = try RadioFixture()
        try fixture.bus.startService(RadioFixture.networkManager, template: "networkmanager", user: "nobody")
        try fixture.bus.call(
            RadioFixture.networkManager, RadioFixture.networkManagerPath, RadioFixture.mock, "AddEthernetDevice",
            ["ssi", "eth0dev", "eth0", "100"])
        try fixture.bus.call(
            RadioFixture.networkManager, RadioFixture.ethernet, RadioFixture.mock, "AddProperty",
            ["ssv", Self.device, "Metered", "u", "2"])
        let reader = fixture.reader()
        #expect(reader.waitUntilRead(timeout: .seconds(10)))
        // Then nothing it says is shown, and the summary (`--verbose`) says why
        let ethernet = try NetworkReachability(address: "192.168.1.1", network: fixture.network)
        #expect(try ethernet.currentSnapshot().path.details == nil)
        let user = try #require(getpwnam("nobody")?.pointee.pw_uid)
        #expect(
            reader.summary.contains(
                "NetworkManager: not taken at its word: its name is owned by a process of user \(user), not root"),
            "\(reader.summary)")
        #expect(fixture.messages.values.contains { $0.contains("not root: its word is not taken") })

        // When it leaves and root's NetworkManager takes the name, root's word is taken
        fixture.bus.stopService(RadioFixture.networkManager)
        try fixture.startNetworkManager(metered: 1)
        var updates = ethernet.updates.makeAsyncIterator()
        #expect(await updates.next { $0.path.details?.isMetered == true } != nil)
    }

    @Test func aMockThatCannotStartSaysWhyInOneLineAtOnce() throws {
        // Given a template python-dbusmock does not have (as Debian 12's has no modemmanager)
        let bus = try PrivateBus()
        defer { bus.remove() }
        let started = ContinuousClock.now
        let error = #expect(throws: CommandError.self) {
            try bus.startService("org.example.Absent", template: "nosuchtemplate")
        }
        // Then the failure comes when the mock ends, not at the 20 s timeout, in one line naming the fix
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(10), "\(elapsed)")
        let words = error?.description ?? ""
        #expect(!words.contains("\n") && words.contains("nosuchtemplate") && words.contains("scripts/install-test-python"))
    }

    @Test func aServiceIsAskedAgainAfterOneTwoFourEightSixteenThenEveryThirtySeconds() {
        #expect((1...9).map { BusSession.backoffSeconds(afterFailures: $0) } == [1, 2, 4, 8, 16, 30, 30, 30, 30])
        #expect(BusSession.backoffSeconds(afterFailures: .max) == 30)
    }
}
