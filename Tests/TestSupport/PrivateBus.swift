import Foundation

/// A `dbus-daemon` of the test's own, configured as a system bus, with python-dbusmock services on it
/// (ModemManager, NetworkManager): real D-Bus traffic without touching the host's bus.
///
/// Everything it starts is killed, and its directory removed, by ``remove()`` (also on `deinit`).
public final class PrivateBus: @unchecked Sendable {
    /// The folder holding the configuration and the socket.
    public let directory: String
    /// The bus's address, for the reader and for `DBUS_SYSTEM_BUS_ADDRESS`.
    public var address: String { "unix:path=\(directory)/bus" }
    private let lock = NSLock()
    private let daemon = Daemon()
    private var services: [String: Subprocess] = [:]  // guarded by `lock`

    /// Debian's own system bus configuration (`/usr/share/dbus-1/system.conf`: its policy and limits, its service
    /// policies in `system.d`), changed only where a bus of a test's own must differ: it listens at `socket`, runs as
    /// the test's user, does not fork, activate services or log to syslog, and also reads the folders `including`.
    public static func debianSystemConfiguration(listeningAt socket: String, including: [String] = []) throws -> String {
        var text = try TestFile.text("/usr/share/dbus-1/system.conf")
        for (pattern, replacement) in [
            (#"<user>[^<]*</user>"#, ""), ("<fork/>", ""), ("<standard_system_servicedirs/>", ""),
            (#"<servicehelper>[^<]*</servicehelper>"#, ""), (#"<pidfile>[^<]*</pidfile>"#, ""), ("<syslog/>", ""),
            (#"<listen>[^<]*</listen>"#, "<listen>unix:path=\(socket)</listen>"),
            (
                "<includedir>system.d</includedir>",
                (["/usr/share/dbus-1/system.d"] + including).map { "<includedir>\($0)</includedir>" }.joined()
            ),
        ] {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text
    }

    /// Starts the bus: with `debianPolicy`, Debian's own system bus configuration
    /// (``debianSystemConfiguration(listeningAt:including:)``, and the policy files of the folders `including`), under
    /// which only root may own the services' names and any user may send a signal to any connection; otherwise one
    /// that lets everyone do everything.
    public init(debianPolicy: Bool = false, including: [String] = []) throws {
        directory = try TestFolder.make("bus")
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
              "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(directory)/bus</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*"/>
                <allow receive_sender="*"/>
              </policy>
            </busconfig>
            """
        try (debianPolicy ? Self.debianSystemConfiguration(listeningAt: "\(directory)/bus", including: including) : configuration)
            .write(toFile: "\(directory)/bus.conf", atomically: true, encoding: .utf8)
        do {
            try start()
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    /// Starts the daemon (again, after ``kill()``) and waits until it answers.
    public func start() throws {
        let process = try Subprocess(["dbus-daemon", "--config-file=\(directory)/bus.conf", "--nofork", "--nopidfile"])
        daemon.hold(process)
        guard eventually(timeout: 10, { (try? Command.run(["busctl", "--address=\(address)", "list"]))?.status == 0 }) else {
            throw CommandError(
                command: ["dbus-daemon"], result: CommandResult(status: 1, standardOutput: "", standardError: "no bus after 10 s")
            )
        }
    }

    /// Kills the daemon with SIGKILL, as a crash would: its socket file stays behind, and its services lose the bus.
    public func kill() { daemon.kill() }

    /// Stops (SIGSTOP) or continues (SIGCONT) the daemon: stopped, it accepts connections and answers nothing.
    public func freeze(_ frozen: Bool) { daemon.freeze(frozen) }

    /// Starts python-dbusmock's `template` (`modemmanager`, `networkmanager`), or a bare mock of `name` without one,
    /// and waits until it owns `name`. It runs as the test's user (root), or as `user`: an impostor, on a bus whose
    /// policy lets anyone own any name.
    ///
    /// - Throws: ``CommandError`` in one line when the mock ends first (the python-dbusmock found has no such template:
    ///   `scripts/install-test-python` installs one that has) or has not taken the name within 20 s.
    public func startService(
        _ name: String, template: String?, object: String = "/", interface: String = "", user: String? = nil
    ) throws {
        let log = "\(directory)/\(name).log"
        var arguments = ["sh", "-c", #"exec "$@" 2>"$0""#, log]
        if let user { arguments += ["setpriv", "--reuid=\(user)", "--regid=nogroup", "--clear-groups"] }
        arguments += ["env", "DBUS_SYSTEM_BUS_ADDRESS=\(address)"]
        arguments += TestPython.command(["-m", "dbusmock", "--system"])
        arguments += template.map { ["--template", $0] } ?? [name, object, interface]
        let process = try Subprocess(arguments)
        lock.withLock { services[name] = process }
        var onTheBus = false
        _ = eventually(timeout: 20) {
            onTheBus = (try? Command.run(["busctl", "--address=\(address)", "status", name]))?.status == 0
            return onTheBus || !process.isRunning
        }
        guard !onTheBus else { return }
        let said = (try? TestFile.text(log))?.split(separator: "\n").last.map(String.init) ?? ""
        let why = process.isRunning ? "not on the bus after 20 s" : "ended (\(said.isEmpty ? "said nothing" : said))"
        throw CommandError(
            command: ["dbusmock"] + (template.map { ["--template", $0] } ?? [name]),
            result: CommandResult(
                status: 1, standardOutput: "",
                standardError:
                    "\(why); \(TestPython.describe("dbusmock")); scripts/install-test-python installs one with every template"
            ))
    }

    /// Ends the service named `name` (SIGTERM): it leaves the bus.
    public func stopService(_ name: String) {
        let process = lock.withLock { services.removeValue(forKey: name) }
        process?.send(SIGTERM)
        _ = process?.wait()
    }

    /// Calls a method with `busctl` and returns what it printed; `arguments` are busctl's signature and values.
    @discardableResult
    public func call(_ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [String] = [])
        throws -> String
    {
        try Command.run(
            ["busctl", "--address=\(address)", "call", destination, path, interface, method] + arguments, check: true,
            timeout: 30
        ).standardOutput
    }

    /// The unique names of the connections process `pid` holds on the bus (`busctl list`).
    public func connections(ofProcess pid: Int32) throws -> [String] {
        let listing = try Command.run(["busctl", "--address=\(address)", "list", "--unique", "--json=short"], check: true)
        let entries = try JSONSerialization.jsonObject(with: Data(listing.standardOutput.utf8)) as? [[String: Any]] ?? []
        return entries.filter { ($0["pid"] as? Int).map(Int32.init) == pid }.compactMap { $0["name"] as? String }
    }

    /// Kills every process it started and removes its directory.
    public func remove() {
        let processes = lock.withLock {
            defer { services.removeAll() }
            return Array(services.values)
        }
        for process in processes { process.end() }
        daemon.kill()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
