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
}
