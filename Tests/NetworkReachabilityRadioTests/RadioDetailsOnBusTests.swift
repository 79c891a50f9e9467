import Logging
import NetworkReachabilityKit
import NetworkReachabilityTesting
import Testing
import TestSupport

@testable import NetworkReachabilityRadio

/// ModemManager's and NetworkManager's facts read from a private bus (python-dbusmock's templates), delivered on
/// the paths of a simulated network's interfaces.
@Suite(.ownThread(timeLimit: .seconds(120)))  // a sequence that misses a change would wait for it forever
struct RadioDetailsOnBusTests {
    @Test func theModemsTechnologySignalAndRoamingAreOnTheCellularPathEachChangeOnce() async throws {
        // Given a modem on LTE at 72 %, at home, and a reader that has read it
        let fixture = try RadioFixture()
        let (reader, reachability, iterator) = try fixture.listeningToModem()
        var updates = iterator
        let first = try #require(await updates.next()?.path.details)
        #expect(first.radioTechnology == .lte4G && first.signal == SignalStrength(percent: 72) && first.isRoaming == false)
        #expect(try reachability.currentSnapshot().path.details == first)

        // When the modem moves to 5G beside LTE, then to HSPA, each is heard once
        try fixture.updateModem(
            RadioFixture.modemInterface, [["AccessTechnologies", "u", "\(RadioFixture.lte | RadioFixture.nr)"]])
        #expect(await updates.next()?.path.details?.radioTechnology == .nr5G)
        try fixture.updateModem(RadioFixture.modemInterface, [["AccessTechnologies", "u", "\(RadioFixture.hspa)"]])
        #expect(await updates.next()?.path.details?.radioTechnology == .umts3G)

        // And a 1 % wiggle is not heard, roaming is, with the signal as delivered before
        try fixture.updateModem(RadioFixture.modemInterface, [["SignalQuality", "(ub)", "73", "true"]])
        try fixture.updateModem(RadioFixture.modem3gpp, [["RegistrationState", "u", "5"]])
        let roaming = try #require(await updates.next()?.path.details)
        #expect(roaming.isRoaming == true && roaming.signal?.percent == 72)

        // And a step to another band is heard, and roaming ends
        try fixture.updateModem(RadioFixture.modemInterface, [["SignalQuality", "(ub)", "31", "true"]])
        #expect(await updates.next()?.path.details?.signal?.percent == 31)
        try fixture.updateModem(RadioFixture.modem3gpp, [["RegistrationState", "u", "1"]])
        #expect(await updates.next()?.path.details?.isRoaming == false)
        #expect(reader.summary.contains("ModemManager: modem 8 on wwan0: 3G, 31 %, registration home"))
    }

    @Test func networkManagerSaysWhichLinksAreMeteredAndTheWiFiSignal() async throws {
        // Given an Ethernet device that is metered (yes), and a Wi-Fi device on an access point at 80 %
        let fixture = try RadioFixture()
        let point = try fixture.startNetworkManager(metered: 1, strength: 80)
        let reader = fixture.reader()
        #expect(reader.waitUntilRead(timeout: .seconds(10)))
        let ethernet = try NetworkReachability(address: "192.168.1.1", network: fixture.network)
        let wifi = try NetworkReachability(address: "192.168.2.1", network: fixture.network)
        let wired = try ethernet.currentSnapshot().path
        #expect(wired.details?.isMetered == true && wired.isExpensive && wired.details?.systemConnectivity == .full)
        #expect(try wifi.currentSnapshot().path.details?.signal == SignalStrength(percent: 80))
        #expect(try wifi.currentSnapshot().path.isExpensive == false)

        // When the metered state is a guess (no, then yes), then no, listeners hear each
        var updates = ethernet.updates.makeAsyncIterator()
        #expect(await updates.next()?.path.details?.isMetered == true)
        try fixture.updateNetworkManager(RadioFixture.ethernet, RadioFixture.device, [["Metered", "u", "4"]])
        let guessNo = try #require(await updates.next()?.path)
        #expect(guessNo.details?.isMetered == false && !guessNo.isExpensive)
        try fixture.updateNetworkManager(RadioFixture.ethernet, RadioFixture.device, [["Metered", "u", "3"]])
        #expect(await updates.next()?.path.isExpensive == true)
        try fixture.updateNetworkManager(RadioFixture.ethernet, RadioFixture.device, [["Metered", "u", "2"]])
        let no = try #require(await updates.next()?.path)
        #expect(no.details?.isMetered == false && !no.isExpensive)

        // And the manager's connectivity check, and the access point's signal, follow
        try fixture.updateNetworkManager(
            RadioFixture.networkManagerPath, RadioFixture.networkManager, [["Connectivity", "u", "2"]])
        #expect(await updates.next()?.path.details?.systemConnectivity == .portal)
        var wifiUpdates = wifi.updates.makeAsyncIterator()
        #expect(await wifiUpdates.next()?.path.details?.signal?.percent == 80)
        try fixture.updateNetworkManager(point, RadioFixture.accessPoint, [["Strength", "y", "40"]])
        #expect(await wifiUpdates.next()?.path.details?.signal?.percent == 40)
    }

    @Test func theDetailsGoWithTheBusOrTheServiceAndComeBackWithThem() async throws {
        // Given a modem read through the bus
        let fixture = try RadioFixture()
        let (reader, reachability, iterator) = try fixture.listeningToModem()
        var updates = iterator
        #expect(await updates.next()?.path.details?.radioTechnology == .lte4G)

        // When ModemManager leaves the bus, its details go; when it returns, they come back
        fixture.bus.stopService(RadioFixture.modemManager)
        #expect(await updates.next()?.path.details == nil)
        #expect(reader.summary.contains("ModemManager: not on the bus"))
        try fixture.startModemManager(technologies: RadioFixture.nr)
        #expect(await updates.next { $0.path.details?.radioTechnology == .nr5G && $0.path.details?.isRoaming == false } != nil)

        // When the bus itself dies (its socket left behind), they go; when it is back with the service, they return
        fixture.bus.kill()
        #expect(await updates.next()?.path.details == nil)
        #expect(reachability.status == .reachable(.cellular))  // the core goes on
        try fixture.bus.start()
        try fixture.startModemManager(technologies: RadioFixture.hspa)
        #expect(await updates.next { $0.path.details?.radioTechnology == .umts3G && $0.path.details?.isRoaming == false } != nil)
        #expect(fixture.messages.values.contains { $0.contains("ModemManager left the bus") })
        #expect(fixture.messages.values.contains { $0.contains("system bus connection ended") })
    }

    @Test func withoutABusThereAreNoDetailsAndTheSummarySaysWhy() throws {
        let fixture = try RadioFixture()
        fixture.bus.kill()
        let reader = fixture.reader(busAddress: "unix:path=\(fixture.bus.directory)/absent")
        #expect(reader.waitUntilRead(timeout: .seconds(10)))
        let reachability = try NetworkReachability(network: fixture.network)
        #expect(try reachability.currentSnapshot().path.details == nil)
        #expect(reachability.status == .reachable(.cellular))
        #expect(reader.summary.first?.hasPrefix("system bus: not reachable at unix:path=") == true)
        #expect(reader.summary.first?.contains("ENOENT") == true)
    }

    @Test func aPropertyOfTheWrongTypeIsLoggedAndOnlyThatFactIsLost() async throws {
        // Given a modem whose access technologies are a string
        let fixture = try RadioFixture()
        try fixture.startModemManager()
        try fixture.updateModem(RadioFixture.modemInterface, [["AccessTechnologies", "s", "LTE"]])
        let reader = fixture.reader()
        #expect(reader.waitUntilRead(timeout: .seconds(10)))
        // Then the technology is absent, the signal is there, and one line says why
        let details = try #require(try NetworkReachability(network: fixture.network).currentSnapshot().path.details)
        #expect(details.radioTechnology == nil && details.signal?.percent == 72)
        #expect(
            fixture.messages.values.contains(
                "ModemManager: AccessTechnologies of \(RadioFixture.modem) is string, not uint32; ignored"))
    }

    @Test func aServiceThatAnswersNonsenseOrNeverAnswersIsLoggedAndLeftWithoutDetails() throws {
        // Given a ModemManager whose object manager answers with a string, and a NetworkManager that never answers
        let fixture = try RadioFixture()
        try fixture.bus.startService(
            RadioFixture.modemManager, template: nil, object: RadioFixture.modemManagerRoot,
            interface: "org.freedesktop.DBus.ObjectManager")
        try fixture.bus.call(
            RadioFixture.modemManager, RadioFixture.modemManagerRoot, RadioFixture.mock, "AddMethod",
            ["sssss", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", "", "s", "ret = 'nonsense'"])
        try fixture.bus.startService(
            RadioFixture.networkManager, template: nil, object: "/org/freedesktop",
            interface: "org.freedesktop.DBus.ObjectManager")
        try fixture.bus.call(
            RadioFixture.networkManager, "/org/freedesktop", RadioFixture.mock, "AddMethod",
            [
                "sssss", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", "", "a{oa{sa{sv}}}",
                "import time; time.sleep(30)",
            ])
        // When a reader with a short timeout reads them
        let reader = fixture.reader(callTimeout: .milliseconds(500))
        // Then it ends its first read without hanging, with no details and a line for each
        #expect(reader.waitUntilRead(timeout: .seconds(10)))
        #expect(try NetworkReachability(network: fixture.network).currentSnapshot().path.details == nil)
        #expect(reader.summary.contains { $0.hasPrefix("ModemManager: answered with the wrong type") })
        #expect(reader.summary.contains { $0.hasPrefix("NetworkManager: did not answer GetManagedObjects within 500 ms") })
        #expect(fixture.messages.values.contains { $0.hasPrefix("NetworkManager did not answer GetManagedObjects") })
    }
}
