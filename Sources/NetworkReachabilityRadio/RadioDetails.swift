import CNetlink
import Logging
import NetworkReachability

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads what ModemManager and NetworkManager know of each interface over the system D-Bus (radio technology,
/// signal, roaming, metered, the manager's connectivity) and gives it to every path this process reports: the
/// ``NetworkReachability/ReachabilityPath/details`` of the interface the route uses.
///
/// ```swift
/// import NetworkReachabilityRadio
///
/// RadioDetails.start(logger: logger)
/// for await snapshot in NetworkReachability().updates {   // LTE → 5G, a signal step, roaming: each a change
///     print(snapshot.path.details?.summary ?? "no details")
/// }
/// ```
///
/// Status listeners (`startListening`) hear only changes of status, which these details never make.
///
/// It listens and never polls: one thread blocks on the bus socket, and the services' `PropertiesChanged`,
/// `InterfacesAdded` and `InterfacesRemoved` signals keep a mirror of their objects. It is optional at run time:
/// with no system bus, or a service that is not on it, the details are absent (``summary`` says why) and nothing else
/// changes. A service that comes (`NameOwnerChanged`), or a bus that comes back (its socket reappears, seen through
/// inotify), is picked up again.
public final class RadioDetails: Sendable {
    private struct State {
        /// Settled details by interface name, with the interface index where NetworkManager gives one.
        var details: [String: (details: LinkDetails, index: Int?)] = [:]
        var handler: (@Sendable (Set<String>?) -> Void)?
        /// One line per source: connected, absent, or why not.
        var lines: [String] = []
    }

    private let state = Locked(State())
    /// Whether the first attempt to reach the bus and read both services has ended.
    private let settled = ConditionLock(false)
    private let busAddress: String
    private let callTimeoutMilliseconds: Int
    private let logger: Logger
    private let stopDescriptor: Int32
    private let thread = Locked<DedicatedThread?>(nil)
    private let isStopping = Locked(false)

    // MARK: - Starting

    private static let shared = Locked<RadioDetails?>(nil)

    /// Starts reading the system bus for every ``NetworkReachability`` of this process, once; later calls return the
    /// same reader. Returns at once: the first details arrive as a change.
    ///
    /// - Parameter logger: where the services' coming and going, and answers of the wrong type, are logged.
    @discardableResult
    public static func start(logger: Logger = NetworkReachability.silentLogger) -> RadioDetails {
        shared.withLock { shared in
            if let shared { return shared }
            let reader = RadioDetails(busAddress: systemBusAddress, monitor: .system, logger: logger)
            shared = reader
            return reader
        }
    }

    /// The system bus's address: `DBUS_SYSTEM_BUS_ADDRESS`, or the well-known socket.
    public static var systemBusAddress: String {
        getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) } ?? "unix:path=/run/dbus/system_bus_socket"
    }

    /// Reads the bus at `busAddress` for `monitor`'s paths: tests give a private bus and a namespace's or a simulated
    /// network's monitor.
    package init(
        busAddress: String, monitor: ReachabilityMonitor, callTimeout: Duration = .seconds(5),
        logger: Logger = NetworkReachability.silentLogger
    ) {
        self.busAddress = busAddress
        callTimeoutMilliseconds = Self.milliseconds(callTimeout)
        self.logger = logger
        stopDescriptor = cnl_wake_eventfd()
        monitor.attach(self)
        do {
            let started = try DedicatedThread(name: "radio-details") { [self] in run() }
            thread.withLock { $0 = started }
        } catch {
            report(lines: ["radio details: \(error)"])
        }
    }

    deinit { SystemCall.close(stopDescriptor) }

    /// Stops reading and closes the connection, for tests; the details it knew stay as they were. The process-wide
    /// reader of ``start(logger:)`` reads for as long as the process lives.
    package func stop() {
        isStopping.withLock { $0 = true }
        SystemCall.signalEvent(stopDescriptor)
        thread.withLock { thread in
            defer { thread = nil }
            return thread
        }?.join()
    }

    // MARK: - What it knows

    /// One line per source for `reach --verbose`: the bus and each service, with what was read or why nothing was.
    public var summary: [String] { state.withLock { $0.lines } }

    /// Waits until the first attempt to reach the bus and read both services has ended, at most `timeout`: for
    /// a one-shot read (`reach status`) that should include the details. Returns whether it ended.
    @discardableResult
    public func waitUntilRead(timeout: Duration) -> Bool {
        settled.wait(until: { $0 }, deadline: SystemCall.monotonicMilliseconds() + Self.milliseconds(timeout)) { _, ended in ended
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }

    // MARK: - The reading thread

    private func run() {
        let watch = BusSocketWatch(address: busAddress)
        var services = [
            ServiceMirror(name: ModemManagerFacts.service, label: "ModemManager", root: ModemManagerFacts.root),
            ServiceMirror(name: NetworkManagerFacts.service, label: "NetworkManager", root: NetworkManagerFacts.root),
        ]
        var loggedComplaints: Set<String> = []
        // Attempts left after the socket appeared: a daemon creates it (bind) a moment before it accepts (listen).
        var quickRetries = 0
        while !isStopping.withLock({ $0 }) {
            var session = BusSession(
                address: busAddress, services: services, timeoutMilliseconds: callTimeoutMilliseconds, logger: logger)
            session.onChange = { [self] services, busLine in
                publish(services, busLine: busLine, loggedComplaints: &loggedComplaints)
            }
            let connected = session.run(stopDescriptor: stopDescriptor)
            services = session.services
            markSettled()
            guard !isStopping.withLock({ $0 }) else { break }
            if !connected, quickRetries > 0 {
                quickRetries -= 1
                usleep(Self.quickRetryMicroseconds)
                continue
            }
            guard let watch else {
                logger.info("cannot watch for the system bus at \(busAddress); radio details stay absent")
                break
            }
            // The bus is not there, or went away: wait for its socket to be created again, or for the stop.
            var descriptors = [
                pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: watch.descriptor, events: Int16(POLLIN), revents: 0),
            ]
            repeat {
                _ = try? SystemCall.run("poll") { poll(&descriptors, 2, -1) }
            } while descriptors[0].revents == 0 && !watch.drain()
            quickRetries = Self.quickRetries
        }
        markSettled()
    }

    /// How often, and how far apart, a connection is tried again after the socket appeared: enough for a daemon
    /// between its `bind` and its `listen`, bounded so that a stale socket costs nothing more.
    private static let quickRetries = 5
    private static let quickRetryMicroseconds: UInt32 = 20_000

    private func markSettled() { settled.withLock { $0 = true } }

    /// Derives each interface's details from the services' mirrors, settles them against those delivered, and tells
    /// the monitor which interfaces changed.
    private func publish(_ services: [ServiceMirror], busLine: String, loggedComplaints: inout Set<String>) {
        var modems = PropertyReader(service: "ModemManager")
        var manager = PropertyReader(service: "NetworkManager")
        let cellular = services[0].owner == nil ? [:] : ModemManagerFacts.details(of: services[0].objects, reader: &modems)
        let devices = services[1].owner == nil ? [:] : NetworkManagerFacts.devices(of: services[1].objects, reader: &manager)
        for complaint in modems.complaints + manager.complaints where loggedComplaints.insert(complaint).inserted {
            logger.warning("\(complaint)")
        }
        var readings: [String: (details: LinkDetails, index: Int?)] = [:]
        for name in Set(cellular.keys).union(devices.keys) {
            let modem = cellular[name]
            let device = devices[name]
            let details = LinkDetails(
                accessTechnologies: modem?.accessTechnologies, signal: modem?.signal ?? device?.details.signal,
                isRoaming: modem?.isRoaming, isMetered: device?.details.isMetered,
                systemConnectivity: device?.details.systemConnectivity)
            readings[name] = (details, device?.index)
        }
        var lines = [busLine]
        for (service, (count, what)) in zip(services, [(cellular.count, "modem interface"), (devices.count, "device")]) {
            lines.append(
                service.owner == nil || service.problem != nil
                    ? "\(service.label): \(service.problem ?? "not on the bus")"
                    : "\(service.label): \(count) \(what)\(count == 1 ? "" : "s")")
        }
        let (changed, handler) = state.withLock { state -> (Set<String>, (@Sendable (Set<String>?) -> Void)?) in
            var changed: Set<String> = []
            var next: [String: (details: LinkDetails, index: Int?)] = [:]
            for (name, reading) in readings {
                let before = state.details[name]
                let settled = reading.details.settled(after: before?.details)
                next[name] = (settled, reading.index)
                if before?.details != settled || before?.index != reading.index { changed.insert(name) }
            }
            changed.formUnion(Set(state.details.keys).subtracting(next.keys))
            state.details = next
            state.lines = lines
            return (changed, state.handler)
        }
        if !changed.isEmpty { handler?(changed) }
        markSettled()
    }

    private func report(lines: [String]) { state.withLock { $0.lines = lines } }
}

extension RadioDetails: LinkDetailsSource {
    package func details(of interface: NetworkInterface) -> LinkDetails? {
        state.withLock { state in
            guard let known = state.details[interface.name] else { return nil }
            if let index = known.index, index != interface.index { return nil }
            return known.details.isEmpty ? nil : known.details
        }
    }

    package func onChange(_ handler: @escaping @Sendable (Set<String>?) -> Void) { state.withLock { $0.handler = handler } }
}
