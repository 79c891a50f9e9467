import Foundation

/// Debian's real ModemManager (1.20) in test mode with one modem of the project's own: an AT port answered by
/// `Modem/at-modem.py` (3GPP TS 27.007), on a private bus with Debian's policy, enabled through python-dbusmock's
/// polkit (which allows what it does not know) and registered on the network ``setNetwork(_:)`` describes.
///
/// Such a modem has only its AT port: no network interface, no connected bearer (the mocks cover those). It runs in
/// a test network's host namespace, where the port's abstract socket is. ``remove()`` (also on `deinit`) kills what
/// it started and removes its folders.
public final class RealModemManager: @unchecked Sendable {
    /// What the modem's network says: 27.007's registration state (1 home, 5 roaming, 2 searching), access technology
    /// (0 GSM, 2 UTRAN, 7 E-UTRAN) and received signal (`+CSQ` rssi, 0 to 31).
    public struct Network: Codable, Sendable {
        public var registration: Int
        public var act: Int
        public var rssi: Int
        public var `operator` = "21401"

        /// Describes a network.
        public init(registration: Int, act: Int, rssi: Int) {
            self.registration = registration
            self.act = act
            self.rssi = rssi
        }
    }

    /// The private bus, whose address the reader uses.
    public let bus: PrivateBus
    /// The folder of the modem's state and the bus policy that lets root own polkit's name.
    public let directory: String
    private let network: TestNetwork
    private let lock = NSLock()
    private var processes: [Subprocess] = []  // guarded by `lock`; the AT port first

    /// Starts the bus, polkit, the modem's AT port and ModemManager, hands ModemManager the port, enables the modem
    /// and waits until it is registered.
    public init(in network: TestNetwork, on modemNetwork: Network) throws {
        self.network = network
        directory = try TestFolder.make("modem")
        try FileManager.default.createDirectory(atPath: "\(directory)/policy", withIntermediateDirectories: true)
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
          "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig><policy user="root"><allow own="org.freedesktop.PolicyKit1"/></policy></busconfig>
        """.write(toFile: "\(directory)/policy/polkit-as-root.conf", atomically: true, encoding: .utf8)
        do {
            bus = try PrivateBus(debianPolicy: true, including: ["\(directory)/policy"])
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        do {
            try start(on: modemNetwork)
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    private var port: String { "abstract:\(URL(fileURLWithPath: directory).lastPathComponent)" }

    private func start(on modemNetwork: Network) throws {
        try bus.startService("org.freedesktop.PolicyKit1", template: "polkitd")
        try bus.call(
            "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.DBus.Mock",
            "AllowUnknown", ["b", "true"])
        try write(modemNetwork)
        let ready = ExclusivePipe()
        try launch(
            ["/usr/bin/python3", Self.responder, port, "\(directory)/network.json"], output: ready,
            errors: "\(directory)/at.log")
        guard String(decoding: ready.readSome(), as: UTF8.self).hasPrefix("ready") else {
            throw CommandError(command: ["at-modem.py"], result: CommandResult(status: 1, standardOutput: "", standardError: log))
        }
        try launch(
            ["env", "DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)", "ModemManager", "--debug", "--test-enable", "--test-no-udev"],
            errors: "\(directory)/mm.log")
        guard
            eventually(timeout: 30, { (try? self.bus.call(Self.service, Self.root, "org.freedesktop.DBus.Peer", "Ping")) != nil })
        else {
            throw CommandError(
                command: ["ModemManager"], result: CommandResult(status: 1, standardOutput: "", standardError: log))
        }
        try bus.call(
            Self.service, Self.root, "org.freedesktop.ModemManager1.Test", "SetProfile",
            ["ssas", "nrt-modem", "generic", "1", port])
        guard eventually(timeout: 30, { (try? self.mmcli(["-L"]))?.contains("/Modem/") == true }) else {
            throw CommandError(
                command: ["mmcli", "-L"], result: CommandResult(status: 1, standardOutput: "", standardError: log))
        }
        try mmcli(["-m", "any", "--enable"])
        // Enabled, it registers and reads the signal a moment later.
        guard
            eventually(
                timeout: 30,
                {
                    let facts = (try? self.mmcli(["-m", "any", "-K"])) ?? ""
                    return facts.contains(#/modem\.generic\.state +: registered/#)
                        && facts.contains(#/modem\.generic\.signal-quality\.value +: [1-9]/#)
                })
        else {
            throw CommandError(
                command: ["mmcli", "-m", "any"], result: CommandResult(status: 1, standardOutput: "", standardError: log))
        }
    }

    private static let service = "org.freedesktop.ModemManager1"
    private static let root = "/org/freedesktop/ModemManager1"

    /// The AT port's responder, beside this file.
    private static var responder: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Modem/at-modem.py").path
    }

    private func launch(_ arguments: [String], output: ExclusivePipe? = nil, errors file: String) throws {
        let errors = ExclusivePipe()
        let process = try network.start(arguments, output: output, errors: errors)
        lock.withLock { processes.append(process) }
        // Copies the process's stderr to `file` as it comes, for failures' messages.
        Thread {
            guard
                let handle = FileManager.default.createFile(atPath: file, contents: nil)
                    ? FileHandle(forWritingAtPath: file) : nil
            else { return }
            while true {
                let data = errors.readSome()
                if data.isEmpty { break }
                handle.write(data)
            }
            try? handle.close()
        }.start()
    }

    /// Moves the modem to `modemNetwork`: the AT port sends the unsolicited result codes a modem sends (`+CREG`,
    /// `+CGREG`, `+CEREG`), which ModemManager reads at once.
    public func setNetwork(_ modemNetwork: Network) throws {
        try write(modemNetwork)
        lock.withLock { processes.first }?.send(SIGUSR1)
    }

    private func write(_ modemNetwork: Network) throws {
        try JSONEncoder().encode(modemNetwork).write(to: URL(fileURLWithPath: "\(directory)/network.json.new"))
        _ = rename("\(directory)/network.json.new", "\(directory)/network.json")
    }

    /// Runs `mmcli` on the private bus and returns what it printed; fails when it fails.
    @discardableResult
    public func mmcli(_ arguments: [String]) throws -> String {
        try Command.run(["env", "DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)", "mmcli"] + arguments, check: true, timeout: 60)
            .standardOutput
    }

    /// What ModemManager and the AT port logged, for a failure's message.
    public var log: String {
        ["mm.log", "at.log"].map { (try? TestFile.text("\(directory)/\($0)")) ?? "" }
            .joined(separator: "\n")
    }

    /// Kills what it started and removes the bus and the folders.
    public func remove() {
        let started = lock.withLock {
            defer { processes.removeAll() }
            return processes
        }
        for process in started.reversed() { process.end() }
        bus.remove()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
