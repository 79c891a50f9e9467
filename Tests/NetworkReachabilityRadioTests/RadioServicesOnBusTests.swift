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
@Suite(.timeLimit(.minutes(2)), .ownThread)
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

    @Test func aModemWithoutANetworkPortGivesItsFactsToItsConnectedBearersInterface() async throws {
        // Given an AT modem (no net port) on LTE, and a PPP link ppp0 that routes 203.0.113.0/24
        let fixture = try RadioFixture()
        try fixture.network.addInterface("ppp0", type: .other, isPointToPoint: true)
        try fixture.network.addAddress("10.65.0.2/32", to: "ppp0")
        try fixture.network.addRoute(to: "203.0.113.0/24", interface: "ppp0")
        try fixture.bus.startService(RadioFixture.modemManager, template: "modemmanager")
        try fixture.bus.call(RadioFixture.modemManager, RadioFixture.modemManagerRoot, RadioFixture.mock, "AddSimpleModem")
        for (name, type, value) in [("Ports", "a(su)", ["1", "ttyUSB2", "3"]), ("Bearers", "ao", ["0"])] {
            try fixture.bus.call(
                RadioFixture.modemManager, RadioFixture.modem, RadioFixture.mock, "AddProperty",
                ["ssv", RadioFixture.modemInterface, name, type] + value)
        }
        let reader = fixture.reader()
        #expect(reader.waitUntilRead(timeout: .seconds(10)))
        #expect(reader.summary.contains("ModemManager: modem 8 (no data interface): LTE, 70 %"))
        let link = try NetworkReachability(address: "203.0.113.9", network: fixture.network)
        var updates = link.updates.makeAsyncIterator()
        #expect(await updates.next()?.path.details == nil)

        // When ModemManager connects a bearer on ppp0 (outside its object manager, as the real daemon exports them)
        try fixture.bus.call(
            RadioFixture.modemManager, RadioFixture.modemManagerRoot, RadioFixture.mock, "AddObject",
            [
                "ssa{sv}a(ssss)", Self.bearerPath, ModemManagerFacts.bearer, "2", "Interface", "s", "ppp0", "Connected", "b",
                "true", "0",
            ])
        try fixture.updateModem(RadioFixture.modemInterface, [["Bearers", "ao", "1", Self.bearerPath]])
        // Then ppp0's path has the modem's facts
        let connected = try #require(await updates.next()?.path)
        #expect(connected.interface?.name == "ppp0" && connected.details?.radioTechnology == .lte4G)
        #expect(reader.summary.contains("ModemManager: modem 8 on ppp0: LTE, 70 %"))

        // And when the bearer disconnects, they go
        try fixture.bus.call(
            RadioFixture.modemManager, Self.bearerPath, RadioFixture.mock, "UpdateProperties",
            ["sa{sv}", ModemManagerFacts.bearer, "2", "Connected", "b", "false", "Interface", "s", ""])
        #expect(await updates.next()?.path.details == nil)
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
