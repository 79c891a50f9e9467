import Foundation
import Testing
import TestSupport

/// The per-network settings file from outside: `reach networks label` names the namespace's network, and the label
/// and the metered override reach `status`, its JSON, `wait`, the queue's conditions and `reach serve`'s series; a
/// running watch follows the file, keeps the last good settings when it breaks and drops them when another user
/// could have written it.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread(timeLimit: .seconds(180)))
struct NetworkSettingsCLIInNamespaceTests {
    /// A folder of the test's own with the settings file's path, removed when it ends.
    private final class Folder {
        let path: String
        init() throws { path = try TestFolder.make("settings") }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        var settings: String { path + "/networks" }
        var environment: [String] { ["REACH_NETWORKS=\(settings)"] }
    }

    private func reach(_ arguments: [String], in network: TestNetwork, _ folder: Folder) throws -> CommandResult {
        try network.run(["env"] + folder.environment + [ReachBinary.path] + arguments)
    }

    private func json(_ result: CommandResult) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))) as? [String: Any]) ?? [:]
    }

    /// The internet's network id once the host has resolved its gateway, within 5 s.
    private func networkID(in network: TestNetwork, _ folder: Folder) throws -> String {
        let deadline = Date().addingTimeInterval(5)
        repeat {
            let status = json(try reach(["status", "--json"], in: network, folder))
            if let id = (status["network"] as? [String: Any])?["id"] as? String { return id }
            try network.touch(TestNetwork.gatewayIPv4)
            usleep(50_000)
        } while Date() < deadline
        throw CommandError(command: ["reach status"], result: CommandResult(status: 1, standardOutput: "", standardError: "no network"))
    }

    @Test func aLabelAndAMeteredOverrideReachStatusWaitTheQueueAndTheExporter() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder()
        let id = try networkID(in: network, folder)

        // Given the current network labelled home and called metered (a tethered phone, say)
        let labelled = try reach(["networks", "label", "home", "--metered", "yes"], in: network, folder)
        #expect(labelled.status == 0 && labelled.standardOutput == "\(id): label home, metered yes (\(folder.settings))\n")
        #expect(try TestFile.text(folder.settings).contains("\(id):\n  label: \"home\"\n  metered: yes\n"))

        // status and its JSON say so; the link itself is Ethernet
        let status = try reach(["status"], in: network, folder)
        #expect(status.standardOutput.hasPrefix("internet: reachable via wiredEthernet rn0, gateway \(TestNetwork.gatewayIPv4), network home (metered) ["))
        let path = json(try reach(["status", "--json"], in: network, folder))
        let identity = try #require(path["network"] as? [String: Any])
        #expect(identity["id"] as? String == id && identity["label"] as? String == "home" && identity["metered"] as? Bool == true)
        #expect(path["isExpensive"] as? Bool == true)
        let listing = json(try reach(["networks", "--json"], in: network, folder))
        #expect((listing["current"] as? [String: Any])?["label"] as? String == "home")
        #expect((listing["known"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])

        // wait: on home at once, not unmetered
        #expect(try reach(["wait", "--network", "home", "--timeout", "0"], in: network, folder).status == 0)
        #expect(try reach(["wait", "--network", id.uppercased(), "--timeout", "0"], in: network, folder).status == 0)
        #expect(try reach(["wait", "--network", "office", "--timeout", "0"], in: network, folder).status == 1)
        let unmetered = try reach(["wait", "--unmetered", "--timeout", "0"], in: network, folder)
        #expect(unmetered.status == 1 && unmetered.standardError.contains("internet (reachable, expensive)"))

        // The exporter: the network's id and label, and metered as the settings say
        let server = try ServeClient(["internet"], in: network, environment: folder.environment)
        defer { server.stop() }
        let info = try server.samples(of: "reach_network_info").map(\.labels)
        #expect(info == [["network": id, "label": "home"]], "\(info)")
        #expect(try server.samples(of: "reach_target_metered").map(\.value) == [1])

        // The queue: a job for home that must be unmetered waits, and runs once the network is labelled unmetered,
        // which a running worker hears from the file
        let database = folder.path + "/jobs.db"
        let output = LineCollector()
        _ = try network.start(
            ["env"] + folder.environment + [ReachBinary.path, "queue", "run", database], output: output.pipe)
        let added = try reach(
            ["queue", "add", database, "--when", "network=home,unmetered", "--", "echo", "ran at home"], in: network, folder)
        #expect(added.status == 0)
        _ = try reach(["queue", "add", database, "--when", "network=office", "--", "echo", "ran at the office"], in: network, folder)
        #expect(output.linesAfterQuiet(1).isEmpty)
        #expect(try reach(["networks", "label", "home", "--metered", "no"], in: network, folder).status == 0)
        #expect(output.waitForLines(1) == ["ran at home"])
        #expect(output.linesAfterQuiet().count == 1)
        #expect(try server.samples(of: "reach_target_metered").map(\.value) == [0])
    }

    @Test func aRunningWatchFollowsTheFileKeepsTheLastGoodAndRefusesAFileOthersCouldWrite() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let folder = try Folder()
        let id = try networkID(in: network, folder)
        #expect(try reach(["networks", "label", "home"], in: network, folder).status == 0)
        let output = LineCollector()
        let errors = LineCollector()
        _ = try network.start(
            ["env"] + folder.environment + [ReachBinary.path, "watch"], output: output.pipe, errors: errors.pipe)
        #expect(output.waitForLines(1).first?.contains(", network home [") == true)

        // Relabelled by another process: the watch prints the new line
        #expect(try reach(["networks", "label", "flat"], in: network, folder).status == 0)
        #expect(output.waitForLines(2).last?.contains(", network flat [") == true)

        // Broken by hand: one error naming the line, and the label stays
        try "\(id):\n  label: flat\n  metered: perhaps\n".write(toFile: folder.settings, atomically: true, encoding: .utf8)
        #expect(errors.waitForLines(1) == ["reach: \(folder.settings):3: metered is yes or no, not 'perhaps'; the settings it gave before stay in force"])
        #expect(output.linesAfterQuiet().count == 2)
        let broken = try reach(["networks"], in: network, folder)
        #expect(broken.status == 78 && broken.standardError.contains("\(folder.settings):3:"))

        // Mended, then opened to every user: refused, and the label goes
        try "\(id):\n  label: flat\n".write(toFile: folder.settings, atomically: true, encoding: .utf8)
        #expect(chmod(folder.settings, 0o666) == 0)
        #expect(errors.waitForLine { $0.contains("may be written by other users (mode 666)") } != nil)
        #expect(output.waitForLine(after: 2) { !$0.contains("network") } != nil)
        let status = try reach(["status", "--json"], in: network, folder)
        #expect(status.standardError == "reach: \(folder.settings) is not used: it may be written by other users (mode 666)\n")
        #expect((json(status)["network"] as? [String: Any])?["label"] is NSNull)
        // And labelling refuses to write into it
        let refused = try reach(["networks", "label", "x"], in: network, folder)
        #expect(refused.status == 78 && refused.standardError.contains("may be written by other users"))

        // A relative REACH_NETWORKS is from the working directory; root's umask does not hide what it makes from users
        let relative = try network.run([
            "sh", "-c",
            "umask 077; cd \(folder.path) && REACH_NETWORKS=made/networks \(ReachBinary.path) networks label x --network \(id)",
        ])
        #expect(relative.standardOutput == "\(id): label x (\(folder.path)/made/networks)\n")
        var info = stat()
        #expect(stat("\(folder.path)/made", &info) == 0 && info.st_mode & 0o777 == 0o755)
        #expect(stat("\(folder.path)/made/networks", &info) == 0 && info.st_mode & 0o777 == 0o644)
    }
}
