@_exported import NetworkReachabilityKit
public import Logging
import NetworkReachabilityCore
import NetworkReachabilityLinux
import NetworkReachabilityPOSIX

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads what ModemManager and NetworkManager know of each interface over the system D-Bus (radio technology,
/// signal, roaming, metered, the manager's connectivity) and gives it to every path this process reports: the
/// `ReachabilityPath.details` of the interface the route uses.
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
/// inotify), is picked up again; a service or bus that does not answer within 5 s is asked again after 1, 2, 4, 8,
/// 16, then every 30 s. A fact that held is kept while a service says, for less than 3 s, that it is not known.
///
/// Any local user may send any connection a signal of the bus's maximum size: the reader decides from each header
/// whether to read the message, decodes only what the bus and the services' current owners send, and discards the
/// rest as it arrives. A service's owner is believed only when it runs as root: on a bus whose policy lets anyone own
/// a service's name, another local user's process could say anything.
///
/// A modem's facts go to the links its data uses: its net ports, a connected bearer's own interface, and the link of
/// NetworkManager's modem device for it (`ppp0`: ModemManager's PPP bearer names only its tty). Such a link is
/// cellular whatever the kernel calls it; while a connected PPP bearer's link is not yet named, so is every link the
/// kernel cannot tell.
public final class RadioDetails: Sendable {
    private struct State {
        /// Settled details by interface name.
        var details: [String: LinkDetails] = [:]
        /// The links that carry a modem's data, which are cellular whatever the kernel calls them.
        var modemLinks: Set<String> = []
        /// Whether a modem's PPP bearer is connected over a link no service has named yet.
        var isPPPLinkUnknown = false
        /// The link each tty's PPP last ran over, as NetworkManager named it; used by the reading thread only.
        var pppLinks: [String: String] = [:]
        var handler: (@Sendable (Set<String>?) -> Void)?
        /// One line per source: connected, absent, or why not.
        var lines: [String] = []
        /// Keeps facts lost for a moment; used by the reading thread only.
        var window: SettleWindow
    }

    private let state: Locked<State>
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

    /// Starts reading the system bus for every `NetworkReachability` of this process, once; later calls return the
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

    /// How long a service may take to answer a call before it is asked again.
    package static let callTimeout = Duration.seconds(5)
    /// How long a fact that held is kept while a service says it is not known (``SettleWindow``).
    package static let settleWindow = Duration.seconds(3)

    /// Reads the bus at `busAddress` for `monitor`'s paths: tests give a private bus and a namespace's or a simulated
    /// network's monitor, and shorter times.
    package init(
        busAddress: String, monitor: ReachabilityMonitor, callTimeout: Duration = RadioDetails.callTimeout,
        settleWindow: Duration = RadioDetails.settleWindow, logger: Logger = NetworkReachability.silentLogger
    ) {
        self.busAddress = busAddress
        callTimeoutMilliseconds = Int(callTimeout.saturatingMilliseconds)
        state = Locked(State(window: SettleWindow(milliseconds: Int(settleWindow.saturatingMilliseconds))))
        self.logger = logger
        stopDescriptor = SystemCall.wakeDescriptor()
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
        settled.wait(until: { $0 }, deadline: MonotonicClock.deadline(after: timeout)) { _, ended in ended
        }
    }


    // MARK: - The reading thread

    private func run() {
        let watch = BusSocketWatch(address: busAddress)
        var services = [ServiceMirror.modemManager(), ServiceMirror.networkManager()]
        var loggedComplaints: Set<String> = []
        // Attempts left after the socket appeared: a daemon creates it (bind) a moment before it accepts (listen).
        var quickRetries = 0
        // Connections in a row to a bus that was there and did not answer in time.
        var silentBus = 0
        while !isStopping.withLock({ $0 }) {
            let session = BusSession(
                address: busAddress, services: services, timeoutMilliseconds: callTimeoutMilliseconds, logger: logger)
            session.onChange = { [self] report in publish(report, loggedComplaints: &loggedComplaints) }
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
            // A bus that did not answer is asked again on the services' schedule; one that is not there, when its
            // socket is made again.
            var retryAt: Int?
            if case .timedOut? = session.connectionFailure {
                silentBus += 1
                retryAt = MonotonicClock.milliseconds() + BusSession.backoffSeconds(afterFailures: silentBus) * 1000
            } else {
                silentBus = 0
            }
            // Wait for the socket, a retry or the stop, while facts lost with the bus lapse at the end of their
            // settle window.
            var descriptors = [
                pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: watch.descriptor, events: Int16(POLLIN), revents: 0),
            ]
            let report = session.lastReport
            var lapse = publish(report, loggedComplaints: &loggedComplaints)
            while true {
                let now = MonotonicClock.milliseconds()
                if let retryAt, retryAt <= now { break }
                let deadline = [lapse, retryAt].compactMap { $0 }.min()
                let timeout = deadline.map { Int32(clamping: max(0, $0 - now)) } ?? -1
                if (try? SystemCall.run("poll") { poll(&descriptors, 2, timeout) }) == 0 {
                    lapse = publish(report, loggedComplaints: &loggedComplaints)
                }
                if descriptors[0].revents != 0 || watch.drain() { break }
            }
            quickRetries = Self.quickRetries
        }
        markSettled()
    }

    /// How often, and how far apart, a connection is tried again after the socket appeared: enough for a daemon
    /// between its `bind` and its `listen`, bounded so that a stale socket costs nothing more.
    private static let quickRetries = 5
    private static let quickRetryMicroseconds: UInt32 = 20_000

    private func markSettled() { settled.withLock { $0 = true } }

    /// Derives each interface's details from the services' mirrors, keeps facts lost for a moment, settles the
    /// signal against what was delivered, and tells the monitor which interfaces changed. Returns when to publish
    /// again for a kept fact to lapse.
    @discardableResult
    private func publish(_ report: BusSession.Report, loggedComplaints: inout Set<String>) -> Int? {
        let services = report.services
        var modemReader = PropertyReader(service: "ModemManager")
        var managerReader = PropertyReader(service: "NetworkManager")
        let manager =
            services[1].owner == nil
            ? (devices: [], connectivity: nil)
            : NetworkManagerFacts.devices(of: services[1].objects, reader: &managerReader)
        var pppLinks = state.withLock { $0.pppLinks }
        let (modems, isPPPLinkUnknown) = ModemManagerFacts.joined(
            services[0].owner == nil ? [] : ModemManagerFacts.modems(of: services[0].objects, reader: &modemReader),
            to: manager.devices, pppLinks: &pppLinks)
        // NetworkManager's word alone says a link carries a modem's data, ModemManager or not; and a link that did a
        // moment ago is still one while its facts are kept (below)
        let modemDeviceLinks = Set(manager.devices.filter(\.carriesModemData).map(\.link))
        let joinedLinks = Set(modems.flatMap(\.interfaces)).union(modemDeviceLinks)
        let meteredByModems = joinedLinks.union(state.withLock { $0.modemLinks })
        let links = NetworkManagerFacts.links(
            of: manager.devices, modemLinks: meteredByModems, unnamedAreModems: isPPPLinkUnknown)
        for complaint in modemReader.complaints + managerReader.complaints
        where loggedComplaints.insert(complaint).inserted {
            logger.warning("\(complaint)")
        }
        var cellular: [String: LinkDetails] = [:]
        for modem in modems {
            for name in modem.interfaces where cellular[name] == nil { cellular[name] = modem.details }
        }
        var readings: [String: LinkDetails] = [:]
        for name in Set(cellular.keys).union(links.keys) {
            let modem = cellular[name]
            let link = links[name]
            readings[name] = LinkDetails(
                accessTechnologies: modem?.accessTechnologies, signal: modem?.signal ?? link?.signal,
                isRoaming: modem?.isRoaming, isMetered: link?.isMetered, systemConnectivity: link?.systemConnectivity)
        }
        var lines = [report.busLine]
        lines += Self.lines(
            for: services[0], facts: modems.isEmpty ? ["no modem"] : modems.map(ModemManagerFacts.line(for:)))
        lines += Self.lines(
            for: services[1], facts: [NetworkManagerFacts.line(links: links, connectivity: manager.connectivity)])
        let now = MonotonicClock.milliseconds()
        let (changed, handler, lapse, newLines) = state.withLock {
            state -> (Set<String>?, (@Sendable (Set<String>?) -> Void)?, Int?, [String]) in
            let (kept, keptLapse) = state.window.apply(readings, after: state.details, now: now)
            var lapse = keptLapse
            var changed: Set<String> = []
            var next: [String: LinkDetails] = [:]
            for (name, reading) in kept {
                let before = state.details[name]
                let settled = reading.settled(after: before)
                next[name] = settled
                if before != settled { changed.insert(name) }
            }
            changed.formUnion(Set(state.details.keys).subtracting(next.keys))
            // A link stays a modem's while the window keeps its modem's facts, so that it loses both at once
            let modemLinks = joinedLinks.union(
                state.modemLinks.filter { kept[$0].map { $0.accessTechnologies != nil || $0.isRoaming != nil } ?? false })
            changed.formUnion(state.modemLinks.symmetricDifference(modemLinks))
            state.details = next
            state.modemLinks = modemLinks
            state.pppLinks = pppLinks
            // Whether unnamed links are a modem's concerns every link the kernel calls `other`
            let everyLink = state.isPPPLinkUnknown != isPPPLinkUnknown
            state.isPPPLinkUnknown = isPPPLinkUnknown
            // A link that stopped being a modem's takes its devices' metered in a publish at once
            if modemLinks != meteredByModems { lapse = now }
            let newLines = lines.filter { !state.lines.contains($0) }
            state.lines = lines
            return (everyLink ? nil : changed, state.handler, lapse, newLines)
        }
        for line in newLines { logger.info("radio details: \(line)") }
        if changed.map({ !$0.isEmpty }) ?? true { handler?(changed) }
        if report.firstReadEnded { markSettled() }
        return lapse
    }

    /// A service's summary lines: its facts, or why there are none.
    private static func lines(for service: ServiceMirror, facts: [String]) -> [String] {
        guard service.owner != nil, service.problem == nil else {
            return ["\(service.label): \(service.problem ?? "not on the bus")"]
        }
        return facts.map { "\(service.label): \($0)" }
    }

    private func report(lines: [String]) { state.withLock { $0.lines = lines } }
}

extension RadioDetails: LinkDetailsSource {
    package func details(of interface: NetworkInterface) -> LinkDetails? {
        state.withLock { state in
            guard let known = state.details[interface.name], !known.isEmpty else { return nil }
            return known
        }
    }

    package func onChange(_ handler: @escaping @Sendable (Set<String>?) -> Void) { state.withLock { $0.handler = handler } }

    /// Every link that carries a modem's data is cellular: a PPP link, which the kernel alone cannot tell from a DSL
    /// line's, is a modem's when NetworkManager's modem device or ModemManager's bearer names it. While a modem's PPP
    /// bearer is connected over a link no service has named yet (the moment between pppd making `ppp0` and
    /// NetworkManager saying so), every link the kernel cannot tell is taken as the modem's: the costlier answer, so
    /// that nothing that must not use a modem starts on it meanwhile.
    package func linkTypes() -> ServiceLinkTypes.Said {
        state.withLock { state in
            ServiceLinkTypes.Said(
                named: Dictionary(uniqueKeysWithValues: state.modemLinks.map { ($0, .cellular) }),
                unnamed: state.isPPPLinkUnknown ? .cellular : nil)
        }
    }
}
