import Foundation

/// Debian's real `systemd-resolved` (unpacked by `scripts/unpack-systemd-resolved`, never installed) in a test network's
/// host namespace, on a private bus with Debian's own policy, in a mount namespace of its own: there `/etc/resolv.conf`
/// names only its stub, as on Ubuntu, Fedora and most desktops, and `/run/systemd/resolve` is the test's folder.
///
/// Commands run through ``run(_:)`` and ``start(_:output:)`` enter that mount namespace, so they see the files as a
/// program on such a host does. ``remove()`` (also on `deinit`) kills everything it started and removes its folder.
public final class SystemdResolved: @unchecked Sendable {
    /// The folder holding the daemon's files, its bus and its configuration.
    public let directory: String
    /// The bus's address.
    public var busAddress: String { "unix:path=\(directory)/bus" }
    private let network: TestNetwork
    private let lock = NSLock()
    private var processes: [Subprocess] = []  // guarded by `lock`; the first is the daemon

    /// Where the unpacked package is.
    public static var root: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build-tools/systemd-resolved").path
    }

    /// `/etc/resolv.conf` as systemd-resolved writes its stub file (`stub-resolv.conf`), which hosts link to.
    public static let stubFile = """
        # This is /run/systemd/resolve/stub-resolv.conf managed by man:systemd-resolved(8).
        # Do not edit.

        nameserver 127.0.0.53
        options edns0 trust-ad
        search .

        """

    /// Starts the daemon with no DNS server of its own (`DNS=` and `FallbackDNS=` empty), and waits until it has
    /// written its files.
    public init(in network: TestNetwork) throws {
        let daemon = "\(Self.root)/lib/systemd/systemd-resolved"
        guard FileManager.default.isExecutableFile(atPath: daemon) else {
            throw CommandError(
                command: [daemon],
                result: CommandResult(
                    status: 1, standardOutput: "", standardError: "not unpacked: run scripts/unpack-systemd-resolved"))
        }
        self.network = network
        directory = try TestFolder.make("resolved")
        try FileManager.default.createDirectory(atPath: "\(directory)/resolve", withIntermediateDirectories: true)
        do {
            try start(daemon)
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    /// The unprivileged user the daemon becomes, known only inside its mount namespace.
    private static let user = (name: "systemd-resolve", id: 64_953)

    private func start(_ daemon: String) throws {
        let user = Self.user
        _ = chown("\(directory)/resolve", uid_t(user.id), gid_t(user.id))
        let passwd = try TestFile.text("/etc/passwd")
        try (passwd + "\(user.name):x:\(user.id):\(user.id)::/:/usr/sbin/nologin\n")
            .write(toFile: "\(directory)/passwd", atomically: true, encoding: .utf8)
        let group = try TestFile.text("/etc/group")
        try (group + "\(user.name):x:\(user.id):\n").write(toFile: "\(directory)/group", atomically: true, encoding: .utf8)
        try Self.stubFile.write(toFile: "\(directory)/stub", atomically: true, encoding: .utf8)
        try PrivateBus.debianSystemConfiguration(
            listeningAt: "\(directory)/bus", including: ["\(Self.root)/usr/share/dbus-1/system.d"]
        ).write(toFile: "\(directory)/bus.conf", atomically: true, encoding: .utf8)
        // Everything inside one mount namespace: the bus daemon too, which must know the user by name.
        let script = """
            set -e
            mount -t tmpfs tmpfs /run/systemd
            mkdir -p /run/systemd/resolve /run/systemd/resolved.conf.d
            mount --bind \(directory)/resolve /run/systemd/resolve
            printf '[Resolve]\\nDNS=\\nFallbackDNS=\\nLLMNR=no\\nMulticastDNS=no\\n' > /run/systemd/resolved.conf.d/test.conf
            mount --bind \(directory)/passwd /etc/passwd
            mount --bind \(directory)/group /etc/group
            mount --bind \(directory)/stub /etc/resolv.conf
            dbus-daemon --config-file=\(directory)/bus.conf --nofork --nopidfile &
            echo $! > \(directory)/bus.pid
            while [ ! -S \(directory)/bus ]; do sleep 0.02; done
            DBUS_SYSTEM_BUS_ADDRESS=\(busAddress) exec \(daemon) 2>\(directory)/resolved.log
            """
        try script.write(toFile: "\(directory)/start.sh", atomically: true, encoding: .utf8)
        let process = try Subprocess(
            ["ip", "netns", "exec", network.name, "unshare", "-m", "--propagation", "private", "sh", "\(directory)/start.sh"])
        lock.withLock { processes.append(process) }
        // Ready once it has written its files and owns its name on the bus.
        guard
            eventually(
                timeout: 20,
                {
                    FileManager.default.fileExists(atPath: "\(self.directory)/resolve/resolv.conf")
                        && (try? Command.run(["busctl", "--address=\(self.busAddress)", "status", "org.freedesktop.resolve1"]))?
                            .status == 0
                })
        else {
            throw CommandError(command: [daemon], result: CommandResult(status: 1, standardOutput: "", standardError: log))
        }
    }

    /// What the daemon logged, for a failure's message.
    public var log: String { (try? TestFile.text("\(directory)/resolved.log")) ?? "" }

    /// The command prefix that enters the daemon's network and mount namespaces, through its bus daemon, which lives
    /// there too and outlives a stopped systemd-resolved.
    private var entering: [String] {
        let bus = (try? TestFile.text("\(directory)/bus.pid")).flatMap {
            Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return ["nsenter", "--target", "\(bus ?? 0)", "--mount", "--net", "--"]
    }

    /// Stops systemd-resolved with SIGTERM, as `systemctl stop` does, and waits until it has exited: its files stay,
    /// as its unit's `RuntimeDirectoryPreserve=yes` keeps them.
    public func stop() {
        let daemon = lock.withLock { processes.first }
        daemon?.send(SIGTERM)
        daemon?.wait()
    }

    /// Starts systemd-resolved again where it ran after ``stop()``, its files left as they were (as `systemctl
    /// restart` does), and waits until it owns its name on the bus.
    public func restart() throws {
        let process = try Subprocess(
            entering + [
                "env", "DBUS_SYSTEM_BUS_ADDRESS=\(busAddress)", "sh", "-c",
                "exec \(Self.root)/lib/systemd/systemd-resolved 2>>\(directory)/resolved.log",
            ])
        lock.withLock { processes.insert(process, at: 0) }  // the daemon is the first
        guard
            eventually(
                timeout: 20,
                {
                    (try? Command.run(["busctl", "--address=\(self.busAddress)", "status", "org.freedesktop.resolve1"]))?
                        .status == 0
                })
        else {
            throw CommandError(
                command: ["systemd-resolved"], result: CommandResult(status: 1, standardOutput: "", standardError: log))
        }
    }

    /// Runs a command where the daemon runs, and waits for it.
    @discardableResult
    public func run(_ arguments: [String]) throws -> CommandResult {
        try Command.run(entering + arguments)
    }

    /// Starts a long-running command where the daemon runs; ``remove()`` kills it.
    public func start(_ arguments: [String], output: ExclusivePipe? = nil) throws -> Subprocess {
        let process = try Subprocess(entering + arguments, standardOutput: output)
        lock.withLock { processes.append(process) }
        return process
    }

    /// Gives `link` the DNS servers `servers` through the daemon's bus (`resolvectl dns`), as NetworkManager or
    /// networkd would; none reverts the link to no servers.
    public func setDNS(_ servers: [String], on link: String) throws {
        let command = servers.isEmpty ? ["revert", link] : ["dns", link] + servers
        let result = try Command.run(
            [
                "ip", "netns", "exec", network.name, "env", "DBUS_SYSTEM_BUS_ADDRESS=\(busAddress)",
                "\(Self.root)/usr/bin/resolvectl",
            ]
                + command)
        guard result.status == 0 else {
            throw CommandError(
                command: ["resolvectl"] + command,
                result: CommandResult(
                    status: result.status, standardOutput: result.standardOutput, standardError: result.standardError + log))
        }
    }

    /// The upstream list the daemon wrote.
    public var upstreamFile: String {
        (try? TestFile.text("\(directory)/resolve/resolv.conf")) ?? ""
    }

    /// Kills every process it started (the daemons inside its mount namespace with them) and removes its folder.
    public func remove() {
        let started = lock.withLock {
            defer { processes.removeAll() }
            return processes
        }
        for process in started.reversed() { process.end() }
        // The bus daemon was started by the script and outlives the shell that became the daemon.
        if let text = try? TestFile.text("\(directory)/bus.pid"),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            kill(pid, SIGKILL)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
