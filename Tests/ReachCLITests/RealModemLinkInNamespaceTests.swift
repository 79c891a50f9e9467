import Foundation
import Testing
import TestSupport

/// Debian's real ModemManager (1.20, with the AT modem of `Modem/at-modem.py`) and NetworkManager (1.42) on one private
/// bus, NetworkManager dialling the modem over PPP as it does an LTE stick on a Raspberry Pi. The one mock is pppd:
/// this kernel has no PPP, so `Modem/pppd`, a stand-in, makes `ppp0` (a `tun`) and reports to NetworkManager as pppd's
/// plugin does. Everything else, the modem's bearer, NetworkManager's modem device and the external device it makes
/// for `ppp0`, the routes, is the real daemons'.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread(timeLimit: .seconds(300)))
struct RealModemLinkInNamespaceTests {
    @Test func aPPPModemsFactsAreOnPPP0WhichIsCellularFromItsFirstMomentAndStaysMeteredOverReconnectsAndACrash() throws {
        // Given a modem registered roaming on LTE, and NetworkManager's connection over it brought up
        let network = try TestNetwork(ipv4: false, ipv6: false)
        defer { network.remove() }
        let modem = try RealModemManager(in: network, on: .init(registration: 5, act: 7, rssi: 20))
        defer { modem.remove() }
        let manager = try RealNetworkManager(managingModemOn: modem.bus, in: network)
        defer { manager.remove() }
        let reach = ["env", "DBUS_SYSTEM_BUS_ADDRESS=\(modem.bus.address)", ReachBinary.path]
        // (watched from before the first connect: every state ppp0 ever had, and a target that prohibits cellular)
        let watched = LineCollector()
        _ = try network.start(reach + ["watch", "--json"], output: watched.pipe)
        let prohibiting = LineCollector()
        _ = try network.start(reach + ["watch", "--json", "--prohibit", "cellular"], output: prohibiting.pipe)
        #expect(watched.waitForLine { _ in true } != nil && prohibiting.waitForLine { _ in true } != nil)
        try manager.nmcli(["connection", "up", "mobile"])

        // Then the internet's route is ppp0's, which is cellular, with the modem's technology, signal and roaming,
        // and NetworkManager's metered
        let first = try Self.status(network, reach)
        let interface = first["interface"] as? [String: Any]
        #expect(interface?.string("name") == "ppp0" && interface?.string("type") == "cellular")
        #expect(first.string("connection") == "wwan" && (first["flags"] as? [String])?.contains("isWWAN") == true)
        #expect(first.string("radioTechnology") == "lte4G" && first.bool("isRoaming") == true)
        #expect(((first["signal"] as? [String: Any])?["percent"] as? Int ?? 0) > 0, "\(first)")
        #expect(first.bool("isMetered") == true && first.bool("isExpensive") == true)
        // And a target that prohibits cellular does not take it
        let prohibited = try network.run(reach + ["status", "--prohibit", "cellular"])
        #expect(prohibited.status == 1, "\(prohibited.standardOutput)")
        // (nor does a wait for one, and a wait that requires cellular ends at once)
        let waitProhibiting = try network.run(reach + ["wait", "--prohibit", "cellular", "--timeout", "1"])
        let waitRequiring = try network.run(reach + ["wait", "--require", "cellular", "--timeout", "10"])
        #expect(waitProhibiting.status == 1 && waitRequiring.status == 0, "\(waitRequiring.standardError)")

        // And every one-shot read has the modem's facts, which need the bearer's own read
        var complete = 0
        for _ in 0..<30 where try Self.status(network, reach)["radioTechnology"] != nil { complete += 1 }
        print("PPP modem: \(complete) of 30 one-shot reads had the radio keys")
        #expect(complete == 30)

        // When a VPN's tunnel takes the internet's route with OpenVPN's split default, the modem's default shadowed
        try network.addTun(named: "vpn0")
        try network.ip("addr", "add", "10.8.0.2/24", "dev", "vpn0")
        try network.ip("link", "set", "vpn0", "up")
        try network.ip("route", "add", "0.0.0.0/1", "dev", "vpn0")
        try network.ip("route", "add", "128.0.0.0/1", "dev", "vpn0")
        // Then the path is the tunnel's and names ppp0 under it with the modem's facts: the tunnel costs what
        // carries it, and is as cellular
        let tunnelled = try Self.status(network, reach)
        let tunnel = tunnelled["interface"] as? [String: Any]
        #expect(tunnel?.string("name") == "vpn0" && tunnelled.bool("vpn") == true, "\(tunnelled)")
        #expect(tunnelled.string("connection") == "ethernetOrWiFi", "the flags are the tunnel's own: \(tunnelled)")
        let under = (tunnelled["underlying"] as? [[String: Any]])?.first
        #expect((under?["interface"] as? [String: Any])?.string("name") == "ppp0", "\(tunnelled)")
        #expect((under?["interface"] as? [String: Any])?.string("type") == "cellular", "\(tunnelled)")
        #expect(under?.string("radioTechnology") == "lte4G" && under?.bool("isRoaming") == true, "\(tunnelled)")
        #expect(under?.bool("isMetered") == true && under?.bool("isExpensive") == true, "\(tunnelled)")
        #expect(tunnelled.bool("isExpensive") == true, "\(tunnelled)")
        let human = try network.run(reach + ["status"]).standardOutput
        #expect(human.contains("via other vpn0") && human.contains(", VPN over cellular ppp0 (LTE, "), "\(human)")
        // And a target that prohibits cellular refuses the tunnel (only the modem carries anything), one that
        // requires it takes it, and a wait for an unmetered path does not end
        let tunnelProhibited = try network.run(reach + ["status", "--json", "--prohibit", "cellular"])
        #expect(tunnelProhibited.status == 1, "\(tunnelProhibited.standardOutput)")
        #expect(try network.run(reach + ["status", "--require", "cellular"]).status == 0)
        #expect(try network.run(reach + ["wait", "--unmetered", "--timeout", "0"]).status == 1)
        // And without the tunnel, ppp0 is the path again
        try network.ip("route", "del", "0.0.0.0/1", "dev", "vpn0")
        try network.ip("route", "del", "128.0.0.0/1", "dev", "vpn0")
        #expect((try Self.status(network, reach)["interface"] as? [String: Any])?.string("name") == "ppp0")

        // When NetworkManager reconnects ten times, making a new external device for ppp0 each time
        var unmetered: [String] = []
        for round in 1...10 {
            try manager.nmcli(["connection", "down", "mobile"])
            try manager.nmcli(["connection", "up", "mobile"])
            let status = try Self.status(network, reach)
            if status.bool("isMetered") != true { unmetered.append("reconnect \(round): \(status)") }
        }
        // Then the link stays metered, the modem device's word, whatever the external device's path
        let devices = try Command.run(
            ["busctl", "--address=\(modem.bus.address)", "tree", "--list", "org.freedesktop.NetworkManager"], check: true
        ).lines.filter { $0.contains("/Devices/") }.compactMap { $0.split(separator: "/").last.flatMap { Int($0) } }
        #expect((devices.max() ?? 0) > 10, "device paths \(devices)")
        #expect(unmetered.isEmpty, "\(unmetered)")

        // When NetworkManager is killed (pppd and ppp0 stay), past the 3 s in which a lost fact is kept
        manager.kill()
        _ = watched.linesAfterQuiet(4)
        // Then to a fresh reader ppp0 is still the modem's: cellular (ModemManager's PPP bearer is connected over a link
        // no running service names) and never unmetered
        let orphaned = try Self.status(network, reach)
        #expect((orphaned["interface"] as? [String: Any])?.string("type") == "cellular", "\(orphaned)")
        #expect(orphaned.bool("isMetered") != false, "\(orphaned)")

        // And from the first connect on, through ten reconnects and the kill, ppp0 was never anything but a metered
        // cellular link, and the target that prohibits cellular was never reachable over it
        let states = watched.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let onPPP0 = states.filter { ($0["interface"] as? [String: Any])?.string("name") == "ppp0" }
        let astray = onPPP0.filter {
            ($0["interface"] as? [String: Any])?.string("type") != "cellular" || $0.bool("isMetered") == false
        }
        print("PPP modem: \(onPPP0.count) states on ppp0 over 11 connects and a kill, \(astray.count) astray")
        #expect(onPPP0.count >= 11 && astray.isEmpty, "\(astray)")
        let refused = prohibiting.lines.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let taken = refused.filter { $0.string("status") != "notReachable" || $0["interface"] is [String: Any] }
        #expect(refused.count >= 1 && taken.isEmpty, "\(taken)")
    }

    /// `reach status --json`'s object.
    private static func status(_ network: TestNetwork, _ reach: [String]) throws -> [String: Any] {
        let result = try network.run(reach + ["status", "--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    }
}
