import Foundation

/// Debian's real NetworkManager managing a test network's uplink `rn0`, on a private bus with Debian's own policy
/// (``PrivateBus/debianSystemConfiguration(listeningAt:including:)``), with the connection `rt` (192.0.2.2/24 via
/// 192.0.2.1, metered) and a connectivity check served from the gateway namespace; or, on a modem's bus, managing
/// the modem and its PPP link instead (``init(managingModemOn:in:)``).
///
/// It runs in a mount namespace of its own: `/run` is private (its state in the test's folder, kept across restarts),
/// and `/sys` read-only, so that it does not wait for udev, which does not run here. It finds `pppd` in
/// `/usr/local/sbin`, where `Modem/pppd`, the stand-in, is mounted (this kernel has no PPP). It touches nothing but its
/// links: never resolv.conf nor the hostname. ``remove()`` (also on `deinit`) kills what it started and removes its
/// folder; the namespaces are the test network's, a bus it was given its giver's.
public final class RealNetworkManager: @unchecked Sendable {
    /// The private bus, whose address the reader and `nmcli` use.
    public let bus: PrivateBus
    /// The folder of its state, configuration and connections.
    public let directory: String
    private let network: TestNetwork
    /// Whether it made ``bus``, and so removes it.
    private let ownsBus: Bool
    /// The links it manages: `rn0`, or everything but `rn0` (a modem and its PPP link).
    private let managesModem: Bool
    private let lock = NSLock()
    private let daemon = Daemon()
    private var checkServer: Subprocess?  // guarded by `lock`

    /// The connectivity check's answer that means full connectivity.
    public static let onlineAnswer = "NetworkManager is online"

    /// Starts NetworkManager on `network` (built with neither IPv4 nor IPv6, so that NetworkManager configures `rn0`)
    /// and waits until the connection is up with full connectivity.
    public init(on network: TestNetwork) throws {
        self.network = network
        bus = try PrivateBus(debianPolicy: true)
        ownsBus = true
        managesModem = false
        directory = "\(bus.directory)/nm"
        do {
            try prepare()
            try startCheckServer()
            try start()
            try nmcli([
                "connection", "add", "type", "ethernet", "ifname", "rn0", "con-name", "rt", "ipv4.method", "manual",
                "ipv4.addresses", "\(TestNetwork.hostIPv4)/24", "ipv4.gateway", TestNetwork.gatewayIPv4, "ipv6.method",
                "disabled", "connection.metered", "yes",
            ])
            try nmcli(["connection", "up", "rt"])
            try waitForConnectivity("full")
        } catch {
            remove()
            throw error
        }
    }

    /// Starts NetworkManager on `bus`, where ModemManager runs, managing every link of `network`'s host namespace but
    /// `rn0`: the modem ModemManager has, and the PPP link it makes. It has the connection `mobile` (`gsm`, APN
    /// `internet`), which it dials when ``nmcli(_:)`` brings it up; no connectivity check. Waits until it has the modem.
    public init(managingModemOn bus: PrivateBus, in network: TestNetwork) throws {
        self.network = network
        self.bus = bus
        ownsBus = false
        managesModem = true
        directory = "\(bus.directory)/nm"
        do {
            try prepare()
            try start()
            try nmcli([
                "connection", "add", "type", "gsm", "ifname", "*", "con-name", "mobile", "apn", "internet",
                "connection.autoconnect", "no",
            ])
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    private func prepare() throws {
        for folder in ["www", "run", "var", "connections", "conf.d"] {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(folder)", withIntermediateDirectories: true)
        }
        try setCheckAnswer(Self.onlineAnswer)
        try configuration.write(toFile: "\(directory)/nm.conf", atomically: true, encoding: .utf8)
    }

    /// Where the pppd stand-in is: mounted over `/usr/local/sbin`, the first folder NetworkManager looks in for
    /// `pppd` that this machine leaves empty.
    private static var standInFolder: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Modem").path
    }

    private var configuration: String {
        let managed =
            managesModem
            ? "unmanaged-devices=interface-name:rn0"
            : """
            unmanaged-devices=except:interface-name:rn0
            [connectivity]
            uri=http://\(TestNetwork.gatewayIPv4)/check
            response=\(Self.onlineAnswer)
            interval=300
            """
        return """
            [main]
            plugins=keyfile
            dns=none
            rc-manager=unmanaged
            hostname-mode=none
            auth-polkit=false
            no-auto-default=*
            [keyfile]
            path=\(directory)/connections
            \(managed)

            """
    }

    // MARK: - The daemon

    /// Starts NetworkManager (again, after ``kill()``) and waits until it manages `rn0`, or the modem.
    public func start() throws {
        let script = """
            set -e
            mount -t tmpfs tmpfs /run
            mkdir -p /run/NetworkManager
            mount --bind \(directory)/run /run/NetworkManager
            mount --bind \(directory)/var /var/lib/NetworkManager
            mount --bind \(Self.standInFolder) /usr/local/sbin
            mount -o remount,bind,ro /sys
            DBUS_SYSTEM_BUS_ADDRESS=\(bus.address) exec NetworkManager --debug --config=\(directory)/nm.conf \\
                --config-dir=\(directory)/conf.d --system-config-dir=\(directory)/conf.d \\
                --intern-config=\(directory)/var/intern.conf --state-file=\(directory)/var/nm.state \\
                --pid-file=/run/NetworkManager/nm.pid 2>>\(directory)/nm.log
            """
        try script.write(toFile: "\(directory)/start.sh", atomically: true, encoding: .utf8)
        let process = try Subprocess(
            ["ip", "netns", "exec", network.name, "unshare", "-m", "--propagation", "private", "sh", "\(directory)/start.sh"])
        daemon.hold(process)
        let ready = managesModem ? ":gsm" : "rn0"
        guard eventually(timeout: 30, { (try? self.nmcli(["-t", "-f", "DEVICE,TYPE", "device"]))?.contains(ready) == true })
        else {
            throw CommandError(
                command: ["NetworkManager"], result: CommandResult(status: 1, standardOutput: "", standardError: log))
        }
    }

    /// Kills NetworkManager with SIGKILL, as a crash would: it leaves the bus, and `rn0` keeps its configuration.
    public func kill() { daemon.kill() }

    /// Stops (SIGSTOP) or continues (SIGCONT) NetworkManager: stopped, it answers nothing until continued.
    public func freeze(_ frozen: Bool) { daemon.freeze(frozen) }

    /// What NetworkManager logged, for a failure's message.
    public var log: String { (try? TestFile.text("\(directory)/nm.log")) ?? "" }

    // MARK: - Driving it

    /// Runs `nmcli` on the private bus and returns what it printed; fails when it fails.
    @discardableResult
    public func nmcli(_ arguments: [String]) throws -> String {
        try Command.run(["env", "DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)", "nmcli"] + arguments, check: true, timeout: 60)
            .standardOutput
    }

    /// Sets the connection's `connection.metered` (`yes`, `no`, `unknown`), which NetworkManager applies to the device
    /// at once.
    public func setMetered(_ value: String) throws {
        try nmcli(["connection", "modify", "rt", "connection.metered", value])
    }

    /// Makes the check answer `text` (the expected answer is full connectivity; another is a portal).
    public func setCheckAnswer(_ text: String) throws {
        try text.write(toFile: "\(directory)/www/check", atomically: true, encoding: .utf8)
    }

    /// Starts or stops the check's server in the gateway namespace: without it, the check fails (limited).
    public func setCheckServer(running: Bool) throws {
        if running {
            try startCheckServer()
        } else {
            let server = lock.withLock {
                defer { checkServer = nil }
                return checkServer
            }
            server?.end()
        }
    }

    private func startCheckServer() throws {
        let server = try network.start(
            [
                "/usr/bin/python3", "-m", "http.server", "80", "--bind", TestNetwork.gatewayIPv4, "--directory",
                "\(directory)/www",
            ],
            inGateway: true)
        lock.withLock { checkServer = server }
        guard
            eventually(
                timeout: 10,
                {
                    (try? Command.run(["ip", "netns", "exec", self.network.gatewayName, "ss", "-lnt"]))?.standardOutput
                        .contains("\(TestNetwork.gatewayIPv4):80") == true
                })
        else {
            throw CommandError(
                command: ["http.server"], result: CommandResult(status: 1, standardOutput: "", standardError: "never listened"))
        }
    }

    /// Has NetworkManager check connectivity now and waits until it says `state` (`full`, `portal`, `limited`).
    public func checkConnectivity(expecting state: String) throws {
        _ = try? nmcli(["networking", "connectivity", "check"])
        try waitForConnectivity(state)
    }

    private func waitForConnectivity(_ state: String) throws {
        guard eventually(timeout: 30, { (try? self.nmcli(["-g", "CONNECTIVITY", "general"]))?.hasPrefix(state) == true }) else {
            throw CommandError(
                command: ["nmcli", "general"],
                result: CommandResult(status: 1, standardOutput: "", standardError: "connectivity never \(state)\n\(log)"))
        }
    }

    /// Kills NetworkManager, the pppd stand-ins it started (a pppd outlives a NetworkManager killed with SIGKILL, as
    /// the real one does) and the check's server, and removes the bus and the folder.
    public func remove() {
        freeze(false)
        kill()
        killStandIns()
        try? setCheckServer(running: false)
        if ownsBus {
            bus.remove()
        } else {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Kills every process in the namespace that runs the pppd stand-in.
    private func killStandIns() {
        let pids = (try? Command.run(["ip", "netns", "pids", network.name]))?.lines.compactMap { Int32($0) } ?? []
        for pid in pids {
            let commandLine = (try? TestFile.text("/proc/\(pid)/cmdline")) ?? ""
            if commandLine.contains("/usr/local/sbin/pppd") { Foundation.kill(pid, SIGKILL) }
        }
    }
}
