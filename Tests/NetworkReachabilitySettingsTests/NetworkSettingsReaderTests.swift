import Foundation
import NetworkReachabilityCore
import NetworkReachabilityPOSIX
@testable import NetworkReachabilitySettings
import NetworkReachabilityTesting
import NetworkReachabilityValidationCore
import Testing
import TestSupport

/// The settings files applied to a simulated network's paths: labels, the metered override, the probe URL; a file
/// changed, broken, opened to other users or made later while a listener listens.
@Suite(.serialized)
struct NetworkSettingsReaderTests {
    private static let home = "a3f9c0d1e2b3a4f5"

    /// A directory of the test's own, removed at the end.
    private final class Directory {
        let path: String
        init() throws { path = try TestFolder.make("settings") }
        func write(_ text: String, to name: String = "networks", mode: Int = 0o644) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(path)/\(name).new"))
            chmod("\(path)/\(name).new", mode_t(mode))
            rename("\(path)/\(name).new", "\(path)/\(name)")
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// A Wi-Fi network (or a modem's, `cellular`) whose gateway names `Self.home`.
    private func network(type: NetworkInterface.InterfaceType = .wifi) throws -> SimulatedNetwork {
        let network = SimulatedNetwork()
        try network.addInterface("wlan0", type: type)
        try network.addAddress("192.168.1.20/24", to: "wlan0")
        try network.addDefaultRoute(via: "192.168.1.1")
        try network.setNetwork(NetworkIdentity(id: Self.home, ingredients: [.gatewayMAC]), on: "wlan0")
        return network
    }

    private func reader(_ paths: [String], on network: SimulatedNetwork) -> NetworkSettingsReader {
        NetworkSettingsReader(
            locations: paths.map { .init(path: $0, owners: [0, UInt32(geteuid())]) }, monitor: network.monitor)
    }

    @Test(.timeLimit(.minutes(1)))
    func aLabelAndAMeteredOverrideReachReadsAndListenersAndFollowTheFile() async throws {
        let directory = try Directory()
        try directory.write("\(Self.home):\n  label: home\n  metered: yes\n")
        let network = try network()
        let reader = reader(["\(directory.path)/networks"], on: network)
        defer { reader.stop() }
        let reachability = try NetworkReachability(network: network)
        let read = try reachability.currentSnapshot().path
        #expect(read.network?.label == "home" && read.network?.summary == "home (a3f9…)")
        #expect(read.isExpensive)

        var updates = reachability.updates.makeAsyncIterator()
        #expect(await updates.next()?.path.network?.label == "home")
        // A new label, written by replacing the file: heard with no change of the network itself
        try directory.write("\(Self.home):\n  label: flat\n")
        let renamed = try #require(await updates.next())
        #expect(renamed.path.network?.label == "flat" && !renamed.path.isExpensive)
        // Broken: one problem naming the line, the last good settings kept
        try directory.write("\(Self.home):\n  label: flat\n  metered: maybe\n")
        #expect(await eventuallyAsync { reader.problems.first?.description == "\(directory.path)/networks:3: metered is yes or no, not 'maybe'" })
        #expect(try reachability.currentSnapshot().path.network?.label == "flat")
        // Opened to other users: refused, and it says nothing any more
        try directory.write("\(Self.home):\n  label: planted\n", mode: 0o666)
        let refused = try #require(await updates.next())
        #expect(refused.path.network?.label == nil)
        #expect(reader.problems.first?.description.contains("may be written by other users (mode 666)") == true)
        // Removed: no problem, no settings
        unlink("\(directory.path)/networks")
        #expect(await eventuallyAsync { reader.problems.isEmpty })
        #expect(reader.known.isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func aUsersFileGoesOverTheHostsFieldByFieldAndAFileMadeLaterIsRead() async throws {
        let directory = try Directory()
        try directory.write("\(Self.home):\n  label: home\n  metered: no\n", to: "host")
        let network = try network(type: .cellular)
        // The user's file is in a directory not made yet
        let user = "\(directory.path)/config/reach/networks"
        let reader = reader(["\(directory.path)/host", user], on: network)
        defer { reader.stop() }
        let reachability = try NetworkReachability(network: network)
        // A modem the host calls unmetered is not expensive
        #expect(try !reachability.currentSnapshot().path.isExpensive)
        var updates = reachability.updates.makeAsyncIterator()
        _ = await updates.next()
        mkdir("\(directory.path)/config", 0o700)
        mkdir("\(directory.path)/config/reach", 0o700)
        try Data("\(Self.home):\n  metered: yes\n".utf8).write(to: URL(fileURLWithPath: user))
        let overridden = try #require(await updates.next())
        #expect(overridden.path.network?.label == "home" && overridden.path.isExpensive)
        #expect(reader.known == [KnownNetwork(id: Self.home, settings: NetworkSettings(label: "home", isMetered: true), file: user)])
    }

    @Test func aFileAnotherUserCouldWriteOrPlantIsRefusedAndAFIFOIsNotWaitedOn() throws {
        let directory = try Directory()
        let path = "\(directory.path)/networks"
        let owners: Set<UInt32> = [0, UInt32(geteuid())]
        // Its directory open to everyone (as /tmp): refused, even when the file itself is fine
        try directory.write("\(Self.home):\n  label: home\n")
        chmod(directory.path, 0o1777)
        guard case .refused(let reason) = TrustedFile.contents(of: path, owners: owners, limit: 1000) else {
            Issue.record("a file in a directory anyone writes was read")
            return
        }
        #expect(reason.contains("directory \(directory.path) may be written by other users (mode 1777)"))
        chmod(directory.path, 0o700)
        // Owned by another user
        if geteuid() == 0 {
            chown(path, 65534, 65534)
            guard case .refused(let owner) = TrustedFile.contents(of: path, owners: owners, limit: 1000) else {
                Issue.record("another user's file was read")
                return
            }
            #expect(owner.contains("owned by user 65534"))
        }
        // A FIFO: refused at once rather than waited on
        unlink(path)
        mkfifo(path, 0o600)
        let started = MonotonicClock.milliseconds()
        guard case .refused(let fifo) = TrustedFile.contents(of: path, owners: owners, limit: 1000) else {
            Issue.record("a FIFO was read")
            return
        }
        #expect(fifo.contains("no regular file") && MonotonicClock.milliseconds() - started < 1000)
        // Larger than the limit
        unlink(path)
        try directory.write(String(repeating: "#", count: 2000))
        #expect(TrustedFile.contents(of: path, owners: owners, limit: 1000) == .refused("is longer than 1000 bytes"))
    }

    @Test func recordingMergesKeepsTheRestAndTwoWritersAtOnceBothCount() throws {
        let directory = try Directory()
        let path = "\(directory.path)/made/here/networks"
        try NetworkSettingsReader.record(NetworkSettings(label: "home", isMetered: false), for: Self.home.uppercased(), in: path)
        // What is not given again stays
        let second = try NetworkSettingsReader.record(NetworkSettings(validationURL: "http://probe.example/"), for: Self.home, in: path)
        #expect(second.settings == NetworkSettings(label: "home", isMetered: false, validationURL: "http://probe.example/"))
        // Eight processes' worth of writers at once: every network is in the file
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            _ = try? NetworkSettingsReader.record(NetworkSettings(label: "n\(index)"), for: String(format: "%016x", index + 1), in: path)
        }
        let written = try NetworkSettingsFile.parse(try TestFile.text(path), path: path)
        #expect(written.count == 9)
        var info = stat()
        stat(path, &info)
        #expect(info.st_mode & 0o777 == 0o644)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(directory.path)/made/here") == ["networks"])
        // Bad values are refused before anything is written
        #expect(throws: NetworkSettingsError.invalidValue(reason: "a label has no comma: 'a,b'")) {
            try NetworkSettingsReader.record(NetworkSettings(label: "a,b"), for: Self.home, in: path)
        }
        #expect(throws: NetworkSettingsError.self) { try NetworkSettingsReader.record(NetworkSettings(label: "x"), for: "a3f9", in: path) }
        // A file another user could write is not written either
        chmod(path, 0o666)
        #expect(throws: NetworkSettingsError.self) { try NetworkSettingsReader.record(NetworkSettings(label: "x"), for: Self.home, in: path) }
    }

    @Test(.timeLimit(.minutes(1)))
    func aValidatorProbesTheURLTheNetworksSettingsGive() async throws {
        let directory = try Directory()
        let own = "http://own-probe.example/ok"
        try directory.write("\(Self.home):\n  validate: \(own)\n")
        let network = try network()
        let reader = reader(["\(directory.path)/networks"], on: network)
        defer { reader.stop() }
        network.setProbeAnswer(.noContent, for: own)
        let validator = try ConnectivityValidator(
            reachability: NetworkReachability(network: network),
            configuration: ValidationConfiguration(probeURL: "http://configured.example/"), prober: network.prober)
        defer { validator.close() }
        #expect(await validator.updates.first { $0 == .validated } == .validated)
        #expect(network.probeCount(for: own) == 1 && network.probeCount(for: "http://configured.example/") == 0)
    }

    /// Writes `text` to `path` as `>` does: truncated, then written after `pause`, then closed.
    private func overwrite(_ path: String, with text: String, pause: useconds_t = 30_000) {
        let descriptor = open(path, O_WRONLY | O_TRUNC)
        usleep(pause)
        _ = Array(text.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    @Test(.ownThread(timeLimit: .seconds(60)))
    func aFileBeingWrittenOrSavedByAnEditorNeverReadsAsNoSettings() async throws {
        let directory = try Directory()
        let path = "\(directory.path)/networks"
        let metered = "\(Self.home):\n  label: phone\n  metered: yes\n"
        try directory.write(metered)
        let network = try network()
        let reader = reader([path], on: network)
        defer { reader.stop() }
        let reachability = try NetworkReachability(network: network)
        let seen = Recorder<ReachabilitySnapshot>()
        let consumer = try reachability.addConsumer(rule: .snapshot) { seen.append($0) }
        defer { reachability.removeConsumer(consumer) }
        #expect(seen.waitFor(1).first?.path.isExpensive == true)

        // Each save names the phone anew, so that the test can wait for it to be read
        for save in 1...10 {
            let text = "\(Self.home):\n  label: phone\(save)\n  metered: yes\n"
            if save % 2 == 0 {
                // `>`: truncated, then written a moment later
                overwrite(path, with: text)
            } else {
                // An editor's save: the old file renamed away, a new one made and written, the old one removed
                rename(path, path + "~")
                let made = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
                usleep(30_000)
                _ = Array(text.utf8).withUnsafeBytes { write(made, $0.baseAddress, $0.count) }
                close(made)
                unlink(path + "~")
            }
            #expect(seen.waitFor { $0.path.network?.label == "phone\(save)" } != nil)
        }
        // Broken by `>`: the malformed text counts, not the empty file before it
        overwrite(path, with: "\(Self.home):\n  label: phone10\n  metered: yess\n")
        #expect(eventually { reader.problems.count == 1 })
        let quiet = seen.valuesAfterQuiet(0.3)
        #expect(quiet.allSatisfy { $0.path.isExpensive && $0.path.network?.label != nil })
        #expect(quiet.count == 11)

        // Emptied for good: the settings lapse after the grace, with no change before it
        let emptied = MonotonicClock.milliseconds()
        overwrite(path, with: "", pause: 0)
        let lapsed = seen.waitFor(12).last
        #expect(lapsed?.path.network?.label == nil && lapsed?.path.isExpensive == false)
        #expect(MonotonicClock.milliseconds() - emptied >= Int(NetworkSettingsReader.missingGrace.saturatingMilliseconds))
    }

    @Test(.timeLimit(.minutes(1)))
    func aLinkedFileIsFollowedToItsTargetAndRecordingWritesThroughIt() async throws {
        let directory = try Directory()
        mkdir("\(directory.path)/dotfiles", 0o755)
        mkdir("\(directory.path)/config", 0o755)
        let target = "\(directory.path)/dotfiles/networks"
        let link = "\(directory.path)/config/networks"
        try directory.write("\(Self.home):\n  label: dot1\n", to: "dotfiles/networks")
        symlink(target, link)
        let network = try network()
        let reader = reader([link], on: network)
        defer { reader.stop() }
        let reachability = try NetworkReachability(network: network)
        var updates = reachability.updates.makeAsyncIterator()
        #expect(await updates.next()?.path.network?.label == "dot1")
        // Edited where it lives
        overwrite(target, with: "\(Self.home):\n  label: dot2\n", pause: 0)
        #expect(await updates.next()?.path.network?.label == "dot2")
        // Recorded through the link: the link stays, its target changes
        try NetworkSettingsReader.record(NetworkSettings(label: "dot3"), for: Self.home, in: link)
        #expect(await updates.next()?.path.network?.label == "dot3")
        var info = stat()
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        #expect(try TestFile.text(target).contains("dot3"))
        // A link made in place of the file (ln -sf): read without a write after it
        try directory.write("\(Self.home):\n  label: other\n", to: "dotfiles/other")
        unlink(link)
        symlink("\(directory.path)/dotfiles/other", link)
        #expect(await updates.next()?.path.network?.label == "other")
    }
}
