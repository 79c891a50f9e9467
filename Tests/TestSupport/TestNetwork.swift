public import Foundation

/// A host namespace joined by a veth pair to a gateway namespace, as the benchmark harness builds it:
/// host `rn0` 192.0.2.2/24 and 2001:db8:0:1::2/64, gateway `rngw` .1 and ::1, default routes via the gateway.
///
/// Everything it makes is removed by ``remove()``, which `deinit` calls too; use it with `defer`.
public final class TestNetwork: @unchecked Sendable {
    /// The host's IPv4 address on `rn0`.
    public static let hostIPv4 = "192.0.2.2"
    /// The gateway's IPv4 address on `rngw`, the IPv4 default route's next hop.
    public static let gatewayIPv4 = "192.0.2.1"
    /// The host's IPv6 address on `rn0`.
    public static let hostIPv6 = "2001:db8:0:1::2"
    /// The gateway's IPv6 address on `rngw`, the IPv6 default route's next hop.
    public static let gatewayIPv6 = "2001:db8:0:1::1"

    /// The host namespace, where the code under test runs.
    public let name: String
    /// The gateway namespace at the other end of the veth.
    public let gatewayName: String
    private var processes: [Subprocess] = []
    /// Pipes of helpers that print `ready`: kept open while the helper lives, or its next write would
    /// raise EPIPE and end it (Python writes "ready" and the newline separately).
    var helperPipes: [ExclusivePipe] = []
    private var isRemoved = false
    /// Namespaces beside the two, made by ``splitGateway()``.
    private var extraNamespaces: [String] = []
    private static let counter = NSLock()
    nonisolated(unsafe) private static var next = 0
    /// Set once the first network of this process has swept what killed test processes left behind.
    nonisolated(unsafe) private static var hasSwept = false

    /// Builds the network.
    ///
    /// - Parameters:
    ///   - ipv4: give the host an IPv4 address and default route.
    ///   - ipv6: give the host an IPv6 address and default route; when false IPv6 is disabled in the host.
    public init(ipv4: Bool = true, ipv6: Bool = true) throws {
        let number = Self.counter.withLock {
            Self.sweepOnceLocked()
            Self.next += 1
            return Self.next
        }
        name = "nrt-\(getpid())-\(number)"
        gatewayName = "\(name)-gw"
        do {
            try build(ipv4: ipv4, ipv6: ipv6)
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    /// Sweeps what killed test processes left behind, unless this process already has. A test that makes stale
    /// networks of its own calls this first, so that no other test's first network sweeps them from under it.
    public static func sweepStaleNetworksOnce() {
        counter.withLock { sweepOnceLocked() }
    }

    private static func sweepOnceLocked() {
        guard !hasSwept else { return }
        hasSwept = true
        StaleTestNetworks.sweep()
    }

    private func build(ipv4: Bool, ipv6: Bool) throws {
        try Command.run(["ip", "netns", "add", name], check: true)
        try Command.run(["ip", "netns", "add", gatewayName], check: true)
        for namespace in [name, gatewayName] {
            try exec(in: namespace, ["sysctl", "-qw", "net.ipv6.conf.default.accept_dad=0", "net.ipv6.conf.all.accept_dad=0"])
            try ip(in: namespace, "link", "set", "lo", "up")
        }
        if !ipv6 {
            try exec(in: name, ["sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1", "net.ipv6.conf.all.disable_ipv6=1"])
        }
        try ip("link", "add", "rn0", "type", "veth", "peer", "name", "rngw", "netns", gatewayName)
        try ip(in: gatewayName, "addr", "add", "\(Self.gatewayIPv4)/24", "dev", "rngw")
        try ip(in: gatewayName, "addr", "add", "\(Self.gatewayIPv6)/64", "dev", "rngw", "nodad")
        try ip(in: gatewayName, "link", "set", "rngw", "up")
        if ipv4 { try ip("addr", "add", "\(Self.hostIPv4)/24", "dev", "rn0") }
        if ipv6 { try ip("addr", "add", "\(Self.hostIPv6)/64", "dev", "rn0", "nodad") }
        try ip("link", "set", "rn0", "up")
        if ipv4 { try ip("route", "add", "default", "via", Self.gatewayIPv4) }
        if ipv6 { try ip("-6", "route", "add", "default", "via", Self.gatewayIPv6) }
        try waitForOperationalState("UP", of: "rn0")
    }

    /// Waits until the kernel reports `state` for `device` (linkwatch sets operstate up to a second after
    /// carrier changes), so a test starts from a settled network.
    public func waitForOperationalState(_ state: String, of device: String, timeout: TimeInterval = 5) throws {
        try waitForOperationalState(state, of: device, in: name, timeout: timeout)
    }

    // MARK: - Changing the network

    /// The host's address on the second uplink (``addSecondUplink()``).
    public static let secondHostIPv4 = "198.51.100.2"
    /// The gateway's address on the second uplink.
    public static let secondGatewayIPv4 = "198.51.100.1"

    /// A second uplink to the gateway namespace, `rn1` (``secondHostIPv4``/24, its gateway ``secondGatewayIPv4``),
    /// up with carrier and no route of its own beyond its subnet.
    public func addSecondUplink() throws {
        try ip("link", "add", "rn1", "type", "veth", "peer", "name", "rngw1", "netns", gatewayName)
        try gatewayIP("addr", "add", "\(Self.secondGatewayIPv4)/24", "dev", "rngw1")
        try gatewayIP("link", "set", "rngw1", "up")
        try ip("addr", "add", "\(Self.secondHostIPv4)/24", "dev", "rn1")
        try ip("link", "set", "rn1", "up")
        try waitForOperationalState("UP", of: "rn1")
    }

    /// Runs `ip ARGS` in the host namespace and fails the test if it fails.
    public func ip(_ arguments: String...) throws {
        try ip(in: name, arguments)
    }

    /// Runs `ip ARGS` in the gateway namespace.
    public func gatewayIP(_ arguments: String...) throws {
        try ip(in: gatewayName, arguments)
    }

    private func ip(in namespace: String, _ arguments: String...) throws {
        try ip(in: namespace, arguments)
    }

    private func ip(in namespace: String, _ arguments: [String]) throws {
        try Command.run(["ip", "-n", namespace] + arguments, check: true)
    }

    /// Adds `count` IPv4 /32 routes via the gateway (in 10.0.0.0/8) with one `ip -batch`, to crowd the table.
    public func addRoutes(_ count: Int) throws {
        try runBatch((0..<count).map { "route add 10.\($0 >> 16 & 255).\($0 >> 8 & 255).\($0 & 255)/32 via \(Self.gatewayIPv4)" })
    }

    /// Adds `pairs` veth pairs (`vb0`/`vc0`, …) inside the namespace with one `ip -batch`, to make link dumps big.
    public func addVethPairs(_ pairs: Int) throws {
        try runBatch((0..<pairs).map { "link add vb\($0) type veth peer name vc\($0)" })
    }

    /// Adds and then deletes `count / 2` IPv4 /24 routes via the gateway with one `ip -batch` (`count` route
    /// messages as fast as the kernel makes them), then runs `finally` (e.g. `route del default`) in the same batch.
    public func floodRoutes(_ count: Int, finally last: String? = nil) throws {
        let half = count / 2
        var lines: [String] = []
        lines.reserveCapacity(count + 1)
        for index in 0..<half { lines.append("route add 10.\(index / 256 % 256).\(index % 256).0/24 via \(Self.gatewayIPv4)") }
        for index in 0..<half { lines.append("route del 10.\(index / 256 % 256).\(index % 256).0/24") }
        if let last { lines.append(last) }
        try runBatch(lines)
    }

    /// Sets `link` in the host namespace down and up again `times` times with one `ip -batch`, leaving it up:
    /// two link notifications per flap, as fast as the kernel makes them.
    public func flapLink(_ link: String, times: Int) throws {
        try runBatch(Array(repeating: ["link set dev \(link) down", "link set dev \(link) up"], count: times).flatMap { $0 })
    }

    private func runBatch(_ lines: [String]) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-batch").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        try Command.run(["ip", "-n", name, "-batch", file], check: true)
    }

    /// Runs a command inside the host namespace and waits for it.
    @discardableResult
    public func run(_ arguments: [String]) throws -> CommandResult {
        try Command.run(["ip", "netns", "exec", name] + arguments)
    }

    private func exec(in namespace: String, _ arguments: [String]) throws {
        try Command.run(["ip", "netns", "exec", namespace] + arguments, check: true)
    }

    // MARK: - Two gateways behind one link

    /// The MAC address of ``splitGateway()``'s first gateway.
    public static let firstGatewayMAC = "02:00:00:00:0a:01"
    /// The MAC address of its second.
    public static let secondGatewayMAC = "02:00:00:00:0b:01"
    /// Which of the two gateways is up: 0 or 1, while split.
    private var activeGateway = 0

    /// Makes the gateway namespace a switch (`rngw` in a bridge) with two gateway namespaces behind it, `…-gwa` and
    /// `…-gwb`, each holding the gateway's addresses (``gatewayIPv4``, ``gatewayIPv6``) with a MAC address of its own
    /// (``firstGatewayMAC``, ``secondGatewayMAC``); the first is up, the second down. ``swapGateway()`` swaps them:
    /// the same addresses behind another gateway, while the host's link stays up. Each gateway announces itself when
    /// it comes up (gratuitous ARP, unsolicited neighbour advertisement), as routers do, so the host's neighbour
    /// table follows.
    public func splitGateway() throws {
        try ip(in: gatewayName, "addr", "flush", "dev", "rngw")
        try ip(in: gatewayName, "link", "add", "rnbr", "type", "bridge")
        try ip(in: gatewayName, "link", "set", "rngw", "master", "rnbr")
        try ip(in: gatewayName, "link", "set", "rnbr", "up")
        for (suffix, mac) in [("gwa", Self.firstGatewayMAC), ("gwb", Self.secondGatewayMAC)] {
            let namespace = "\(name)-\(suffix)"
            try Command.run(["ip", "netns", "add", namespace], check: true)
            extraNamespaces.append(namespace)
            try exec(in: namespace, [
                "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0",
                "net.ipv4.conf.all.arp_notify=1", "net.ipv4.conf.default.arp_notify=1",
                "net.ipv6.conf.all.ndisc_notify=1", "net.ipv6.conf.default.ndisc_notify=1",
            ])
            try ip(in: gatewayName, "link", "add", "rnp\(suffix)", "type", "veth", "peer", "name", "rnr", "netns", namespace)
            try ip(in: gatewayName, "link", "set", "rnp\(suffix)", "master", "rnbr")
            try ip(in: gatewayName, "link", "set", "rnp\(suffix)", "up")
            try ip(in: namespace, "link", "set", "rnr", "address", mac)
            try ip(in: namespace, "addr", "add", "\(Self.gatewayIPv4)/24", "dev", "rnr")
            try ip(in: namespace, "addr", "add", "\(Self.gatewayIPv6)/64", "dev", "rnr", "nodad")
        }
        try ip(in: "\(name)-gwa", "link", "set", "rnr", "up")
        activeGateway = 0
    }

    /// Takes the gateway that is up down and brings the other up (``splitGateway()``); once its link carries, the
    /// new gateway announces its MAC address with a gratuitous ARP, as a router does when it comes up (the kernel's
    /// own, at the moment the link comes up, goes out before the switch forwards it).
    public func swapGateway() throws {
        let (down, up) = activeGateway == 0 ? ("gwa", "gwb") : ("gwb", "gwa")
        try ip(in: "\(name)-\(down)", "link", "set", "rnr", "down")
        try ip(in: "\(name)-\(up)", "link", "set", "rnr", "up")
        activeGateway = 1 - activeGateway
        try waitForOperationalState("UP", of: "rnp\(up)", in: gatewayName)
        try waitForOperationalState("UP", of: "rnr", in: "\(name)-\(up)")
        let mac = (up == "gwa" ? Self.firstGatewayMAC : Self.secondGatewayMAC).replacingOccurrences(of: ":", with: "")
        let script = """
            import socket, struct
            mac, ip = bytes.fromhex('\(mac)'), socket.inet_aton('\(Self.gatewayIPv4)')
            arp = struct.pack('!HHBBH', 1, 0x0800, 6, 4, 1) + mac + ip + bytes(6) + ip
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
            s.bind(('rnr', 0))
            s.send(b'\\xff' * 6 + mac + b'\\x08\\x06' + arp)
            """
        try exec(in: "\(name)-\(up)", ["/usr/bin/python3", "-c", script])
    }

    /// The same wait for a device in any of the network's namespaces.
    private func waitForOperationalState(
        _ state: String, of device: String, in namespace: String, timeout: TimeInterval = 5
    ) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let output = try Command.run(["ip", "-n", namespace, "-br", "link", "show", device], check: true).standardOutput
            if output.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first == Substring(state) { return }
            usleep(10_000)
        }
        throw CommandError(
            command: ["wait for \(device) \(state) in \(namespace)"],
            result: CommandResult(status: 1, standardOutput: "", standardError: "timed out"))
    }

    /// Sends one UDP datagram from the host to `address` (port 9, discard), so the host resolves its neighbour.
    public func touch(_ address: String) throws {
        let family = address.contains(":") ? "AF_INET6" : "AF_INET"
        try exec(in: name, [
            "/usr/bin/python3", "-c",
            "import socket; socket.socket(socket.\(family), socket.SOCK_DGRAM).sendto(b'x', ('\(address)', 9))",
        ])
    }

    // MARK: - Processes inside

    /// Starts a long-running process in the host namespace (or the gateway's); it is killed by ``remove()``.
    public func start(
        _ arguments: [String], output: ExclusivePipe? = nil, errors: ExclusivePipe? = nil, inGateway: Bool = false
    ) throws -> Subprocess {
        let process = try Subprocess(
            ["ip", "netns", "exec", inGateway ? gatewayName : name] + arguments, standardOutput: output, standardError: errors)
        processes.append(process)
        return process
    }

    /// A tun device `name` with carrier: a process inside the namespace holds it open until ``remove()``.
    public func addTun(named device: String) throws {
        try ip("tuntap", "add", "dev", device, "mode", "tun")
        let script = """
            import fcntl, os, struct, sys, time
            fd = os.open('/dev/net/tun', os.O_RDWR)
            fcntl.ioctl(fd, 0x400454ca, struct.pack('16sH', b'\(device)', 0x0001 | 0x1000))
            print('ready', flush=True)
            time.sleep(600)
            """
        let pipe = ExclusivePipe()
        helperPipes.append(pipe)
        _ = try start(["/usr/bin/python3", "-c", script], output: pipe)
        _ = pipe.readSome()  // returns once the device is attached
    }

    // MARK: - Name resolution

    /// The directory `ip netns exec` bind-mounts over `/etc` files for the host namespace.
    public var etcDirectory: String { Self.etcDirectory(of: name) }

    /// The directory `ip netns exec` bind-mounts over `/etc` files for the namespace `namespace`.
    public static func etcDirectory(of namespace: String) -> String { "/etc/netns/\(namespace)" }

    /// Where ``startDNS(on:records:)`` keeps the records of the network whose host namespace is `namespace`.
    static func dnsRecordsDirectory(of namespace: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(namespace)-dns").path
    }

    /// Writes the host namespace's own `/etc/resolv.conf` (in place, so a running process's bind mount sees it).
    public func setResolverConfiguration(nameserver: String, timeoutSeconds: Int = 1, attempts: Int = 1) throws {
        try writeEtc("resolv.conf", "nameserver \(nameserver)\noptions timeout:\(timeoutSeconds) attempts:\(attempts)\n")
    }

    /// Writes the host namespace's own `/etc/resolv.conf` as `text`: empty for a host with no name server.
    public func writeResolverConfiguration(_ text: String) throws {
        try writeEtc("resolv.conf", text)
    }

    /// Writes the host namespace's own `/etc/hosts`.
    public func setHostsFile(_ lines: [String]) throws {
        try writeEtc("hosts", (["127.0.0.1 localhost"] + lines).joined(separator: "\n") + "\n")
    }

    private func writeEtc(_ file: String, _ text: String) throws {
        try FileManager.default.createDirectory(atPath: etcDirectory, withIntermediateDirectories: true)
        let path = "\(etcDirectory)/\(file)"
        if let handle = FileHandle(forWritingAtPath: path) {
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        } else {
            try text.write(toFile: path, atomically: false, encoding: .utf8)
        }
    }

    private var dnsRecordsDirectory: String?

    /// Starts dnsmasq in the gateway namespace on `address`, answering for `.test` from `records`
    /// (`/etc/hosts` lines) and NXDOMAIN for any other `.test` name; ``remove()`` stops it.
    public func startDNS(on address: String, records: [String]) throws {
        let directory = Self.dnsRecordsDirectory(of: name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        dnsRecordsDirectory = directory
        try setDNSRecords(records)
        _ = try start(
            [
                "dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null", "--no-resolv", "--no-hosts", "--user=root",
                "--bind-interfaces", "--listen-address=\(address)", "--local=/test/", "--hostsdir=\(directory)",
                "--pid-file=",
            ], inGateway: true)
        try waitForPort53(address)
    }

    /// Replaces the DNS server's records; dnsmasq notices through inotify.
    public func setDNSRecords(_ records: [String]) throws {
        guard let directory = dnsRecordsDirectory else { return }
        let staging = "\(directory)/.records"
        try (records.joined(separator: "\n") + "\n").write(toFile: staging, atomically: false, encoding: .utf8)
        _ = rename(staging, "\(directory)/records")
    }

    /// Starts a UDP server on `address` port 53 in the gateway namespace that reads queries and never answers.
    public func startSilentDNS(on address: String) throws {
        let family = address.contains(":") ? "AF_INET6" : "AF_INET"
        let script = """
            import socket, time
            s = socket.socket(socket.\(family), socket.SOCK_DGRAM)
            s.bind(('\(address)', 53))
            print('ready', flush=True)
            while True:
                s.recvfrom(2048)
            """
        let pipe = ExclusivePipe()
        let errors = ExclusivePipe()
        helperPipes += [pipe, errors]
        processes.append(
            try Subprocess(
                ["ip", "netns", "exec", gatewayName, "/usr/bin/python3", "-c", script], standardOutput: pipe,
                standardError: errors))
        let ready = String(decoding: pipe.readSome(), as: UTF8.self)
        guard ready.hasPrefix("ready") else {
            let why = String(decoding: errors.readAll(), as: UTF8.self)
            throw CommandError(
                command: ["silent DNS"], result: CommandResult(status: 1, standardOutput: ready, standardError: why))
        }
    }

    /// Starts sending router advertisements from the gateway every 200 ms, carrying PREF64 `64:ff9b::/96` with
    /// `prefixLifetime` seconds, RDNSS `2001:db8::53` and the captive-portal URI `captivePortal` (RFC 8910).
    public func startRouterAdvertisements(
        prefixLifetime: Int, captivePortal: String = "https://portal.example/api"
    ) throws -> Subprocess {
        let script = """
            import socket, struct, time
            index = socket.if_nametoindex('rngw')
            s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 255)
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, index)
            header = struct.pack('!BBHBBHII', 134, 0, 0, 64, 0, 0, 0, 0)
            scaled = (\(prefixLifetime) // 8) & 0x1FFF
            pref64 = struct.pack('!BBH', 38, 2, scaled << 3) + socket.inet_pton(socket.AF_INET6, '64:ff9b::')[:12]
            rdnss = struct.pack('!BBHI', 25, 3, 0, 600) + socket.inet_pton(socket.AF_INET6, '2001:db8::53')
            uri = b'\(captivePortal)'
            pad = (-(2 + len(uri))) % 8
            portal = struct.pack('!BB', 37, (2 + len(uri) + pad) // 8) + uri + bytes(pad)
            print('ready', flush=True)
            while True:
                s.sendto(header + pref64 + rdnss + portal, ('ff02::1', 0, 0, index))
                time.sleep(0.2)
            """
        let pipe = ExclusivePipe()
        helperPipes.append(pipe)
        let process = try start(["/usr/bin/python3", "-c", script], output: pipe, inGateway: true)
        _ = pipe.readSome()
        return process
    }

    private func waitForPort53(_ address: String) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let sockets = try Command.run(["ip", "netns", "exec", gatewayName, "ss", "-lnu"]).standardOutput
            if sockets.contains(address.contains(":") ? "[\(address)]:53" : "\(address):53") { return }
            usleep(20_000)
        }
        throw CommandError(
            command: ["dnsmasq"], result: CommandResult(status: 1, standardOutput: "", standardError: "never listened"))
    }

    // MARK: - Teardown

    /// Kills the processes started inside, then deletes both namespaces (and with them the veth and tun).
    public func remove() {
        guard !isRemoved else { return }
        isRemoved = true
        for process in processes { process.end() }
        _ = try? Command.run(["ip", "netns", "del", name])
        _ = try? Command.run(["ip", "netns", "del", gatewayName])
        for namespace in extraNamespaces { _ = try? Command.run(["ip", "netns", "del", namespace]) }
        try? FileManager.default.removeItem(atPath: etcDirectory)
        if let dnsRecordsDirectory { try? FileManager.default.removeItem(atPath: dnsRecordsDirectory) }
    }
}
