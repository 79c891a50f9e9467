import Foundation
import Testing
import TestSupport

/// `reach` beside Debian's real ModemManager (1.20) in test mode, with a modem whose AT port is the project's own:
/// the daemon's real property types are read without a complaint, and what the modem's network does shows in
/// `--verbose`'s summary.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread(timeLimit: .seconds(180)))
struct RealModemManagerInNamespaceTests {
    @Test func itsRealTypesAreReadAndRegistrationAndRoamingChangesShowInTheSummary() throws {
        // Given a modem registered roaming on LTE, at CSQ 20
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let modem = try RealModemManager(in: network, on: .init(registration: 5, act: 7, rssi: 20))
        defer { modem.remove() }
        let environment = ["env", "DBUS_SYSTEM_BUS_ADDRESS=\(modem.bus.address)", ReachBinary.path]

        // Then `reach status --verbose` says what ModemManager says of it: no data interface, LTE, 64 %, roaming
        let roaming = "ModemManager: modem 0 (no data interface): LTE, 64 %, registration roaming"
        let status = try network.run(environment + ["status", "--verbose"])
        #expect(status.standardError.contains("radio details: \(roaming)"), "\(status.standardError)")

        // When a watch runs and the modem moves home, onto UMTS: the summary line changes with it
        let errors = LineCollector()
        _ = try network.start(environment + ["watch", "--verbose"], errors: errors.pipe)
        #expect(errors.waitForLine(timeout: 20) { $0.contains(roaming) } != nil)
        try modem.setNetwork(.init(registration: 1, act: 2, rssi: 20))
        let home = "ModemManager: modem 0 (no data interface): 3G, 64 %, registration home"
        #expect(errors.waitForLine(timeout: 20) { $0.contains(home) } != nil, "\(errors.lines)")
        // And back to roaming
        let seen = errors.lines.count
        try modem.setNetwork(.init(registration: 5, act: 7, rssi: 20))
        #expect(errors.waitForLine(after: seen, timeout: 20) { $0.contains(roaming) } != nil)
        // And no property of the real daemon had a type the reader did not expect
        #expect(!(status.standardError + errors.lines.joined()).contains("; ignored"))
    }
}
