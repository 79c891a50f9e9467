import Foundation
import Testing
import TestSupport

/// `reach watch` beside Debian's real NetworkManager (1.42) managing the namespace's uplink, on a bus with Debian's
/// own policy: what the mocks cannot show (the real types and timing, re-activation, a frozen or killed daemon, and
/// an unprivileged user who floods the reader).
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread(timeLimit: .seconds(180)))
struct RealNetworkManagerInNamespaceTests {
    /// A watch of the internet with its JSON lines, and its stderr (`--verbose`).
    private struct Watch {
        let output = LineCollector()
        let errors = LineCollector()
        let process: Subprocess

        init(in network: TestNetwork, bus: PrivateBus) throws {
            process = try network.start(
                ["env", "DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)", ReachBinary.path, "watch", "--json", "--verbose"],
                output: output.pipe, errors: errors.pipe)
        }

        /// The next line, after those seen, whose JSON satisfies `condition`.
        func line(after seen: Int, timeout: TimeInterval = 20, where condition: ([String: Any]) -> Bool) -> [String: Any]? {
            output.waitForLine(after: seen, timeout: timeout) { line in Self.object(line).map(condition) ?? false }
                .flatMap(Self.object)
        }

        static func object(_ line: String) -> [String: Any]? {
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
    }

    @Test func meteredAndConnectivityAreHeardBothWaysAndAReactivationChangesNoFact() throws {
        // Given NetworkManager with rn0 up, metered, connectivity full
        let network = try TestNetwork(ipv4: false, ipv6: false)
        defer { network.remove() }
        let manager = try RealNetworkManager(on: network)
        defer { manager.remove() }
        let watch = try Watch(in: network, bus: manager.bus)
        #expect(watch.line(after: 0) { $0.bool("isMetered") == true && $0.string("systemConnectivity") == "full" } != nil)

        // When the connection is made not metered, then metered again, each is heard
        var seen = watch.output.lines.count
        try manager.setMetered("no")
        #expect(watch.line(after: seen) { $0.bool("isMetered") == false } != nil)
        seen = watch.output.lines.count
        try manager.setMetered("yes")
        #expect(watch.line(after: seen) { $0.bool("isMetered") == true } != nil)

        // And its connectivity check: a portal, then limited (no answer), then full again
        for (state, change) in [
            ("portal", { try manager.setCheckAnswer("<html>log in</html>") }),
            ("limited", { try manager.setCheckServer(running: false) }),
            (
                "full",
                {
                    try manager.setCheckAnswer(RealNetworkManager.onlineAnswer); try manager.setCheckServer(running: true)
                }
            ),
        ] as [(String, () throws -> Void)] {
            seen = watch.output.lines.count
            try change()
            try manager.checkConnectivity(expecting: state)
            #expect(watch.line(after: seen) { $0.string("systemConnectivity") == state } != nil, "\(state)")
        }

        // When the connection is re-activated (metered unknown and connectivity none for a moment), the kernel's
        // short not-reachable is heard, and no reachable line lacks a fact
        seen = watch.output.lines.count
        try manager.nmcli(["connection", "up", "rt"])
        #expect(watch.line(after: seen) { $0.string("status") == "notReachable" } != nil)
        #expect(watch.line(after: seen + 1) { $0.string("status") == "reachable" } != nil)
        let after = watch.output.linesAfterQuiet(1).dropFirst(seen).compactMap(Watch.object)
        for line in after where line.string("status") == "reachable" {
            #expect(line.bool("isMetered") == true && line.string("systemConnectivity") == "full", "\(line)")
        }
        // and the reader complained of no property's type
        #expect(!watch.errors.lines.contains { $0.contains("; ignored") })
    }

    @Test func aFrozenNetworkManagerIsAskedAgainAndAKilledOneIsHeardAgainWhenItReturns() throws {
        // Given NetworkManager frozen (SIGSTOP) while a watch starts
        let network = try TestNetwork(ipv4: false, ipv6: false)
        defer { network.remove() }
        let manager = try RealNetworkManager(on: network)
        defer { manager.remove() }
        manager.freeze(true)
        let watch = try Watch(in: network, bus: manager.bus)
        // Then the load times out, the reader says it asks again, and the internet is reachable without its facts
        let timedOut = "NetworkManager: did not answer GetManagedObjects within 5000 ms; asking again in 1 s"
        #expect(watch.errors.waitForLine(timeout: 30) { $0.contains(timedOut) } != nil)
        #expect(watch.line(after: 0) { $0.string("status") == "reachable" && $0["isMetered"] == nil } != nil)

        // When it continues, its facts arrive, and later flips are heard
        manager.freeze(false)
        #expect(watch.line(after: 0) { $0.bool("isMetered") == true } != nil)
        var seen = watch.output.lines.count
        try manager.setMetered("no")
        #expect(watch.line(after: seen) { $0.bool("isMetered") == false } != nil)

        // When it is killed, its facts go once the settle window has passed; when it returns, they come back
        seen = watch.output.lines.count
        manager.kill()
        #expect(watch.line(after: seen) { $0.string("status") == "reachable" && $0["isMetered"] == nil } != nil)
        #expect(watch.errors.lines.contains { $0.contains("NetworkManager left the bus") })
        seen = watch.output.lines.count
        try manager.start()
        #expect(watch.line(after: seen) { $0.bool("isMetered") == false && $0.string("systemConnectivity") != nil } != nil)
    }

    @Test func aFloodFromAnUnprivilegedUserCostsTheReaderNoMemoryAndTheNextChangeIsStillHeard() throws {
        // Given a watch that has read NetworkManager's facts
        let network = try TestNetwork(ipv4: false, ipv6: false)
        defer { network.remove() }
        let manager = try RealNetworkManager(on: network)
        defer { manager.remove() }
        let watch = try Watch(in: network, bus: manager.bus)
        #expect(watch.line(after: 0) { $0.bool("isMetered") == true } != nil)
        let reader = try #require(try manager.bus.connections(ofProcess: watch.process.pid).first)
        let device = try manager.nmcli(["-g", "GENERAL.DBUS-PATH", "device", "show", "rn0"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let settled = try #require(watch.process.peakResidentKiB)

        // When user nobody sends it signals of every size up to the bus's maximum (32 MiB), three of the largest,
        // and one shaped as NetworkManager's own saying rn0 is not metered
        let flood = """
            import dbus, dbus.lowlevel, sys
            bus = dbus.bus.BusConnection(sys.argv[1])
            def signal(path, interface, member):
                message = dbus.lowlevel.SignalMessage(path, interface, member)
                message.set_destination(sys.argv[2])
                return message
            for size in [0, 1 << 10, 1 << 16, 1 << 20, 8 << 20] + [(32 << 20) - 512] * 3:
                message = signal(sys.argv[3], 'org.freedesktop.DBus.Properties', 'PropertiesChanged')
                message.append(dbus.ByteArray(bytes(size)), signature='ay')
                bus.send_message(message)
            message = signal(sys.argv[3], 'org.freedesktop.DBus.Properties', 'PropertiesChanged')
            message.append('org.freedesktop.NetworkManager.Device', {'Metered': dbus.UInt32(2)}, [], signature='sa{sv}as')
            bus.send_message(message)
            bus.flush()
            print('sent', flush=True)
            """
        let sent = try Command.run(
            [
                "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-c", flood,
                manager.bus.address, reader, device,
            ], check: true, timeout: 120)
        #expect(sent.standardOutput == "sent\n")

        // Then the reader read it all and took none of it, its peak memory stays within its bound, and
        // NetworkManager's own next change is heard
        func skipped() -> Int {
            watch.errors.lines.compactMap { line -> Int? in
                guard let range = line.range(of: #"\((\d+) bytes\) that no followed service sent"#, options: .regularExpression)
                else { return nil }
                return Int(line[range].dropFirst().prefix { $0.isNumber })
            }.reduce(0, +)
        }
        #expect(eventually(timeout: 30) { skipped() >= 3 * (32 << 20) - 1536 + (9 << 20) })
        let seen = watch.output.lines.count
        let start = Date()
        try manager.setMetered("no")
        let heard = watch.line(after: seen) { $0.bool("isMetered") == false }
        #expect(heard != nil)
        #expect(!watch.output.lines.prefix(seen).dropFirst().contains { Watch.object($0)?.bool("isMetered") == false })
        let peak = try #require(watch.process.peakResidentKiB)
        print(
            "flood: peak resident KiB settled \(settled), after 104 MiB of signals \(peak); change heard after \(Date().timeIntervalSince(start)) s"
        )
        if Sanitizer.current == nil { #expect(peak - settled < RealNetworkManagerInNamespaceTests.floodBoundKiB) }
    }

    /// How much a flood may raise the reader's peak resident memory: its 64 KiB reads and one decoded header each.
    static let floodBoundKiB = 2048
}
