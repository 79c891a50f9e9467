import Logging
import NetworkReachability

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One connection to the bus, from its start to its end, on the reading thread: the match rules, each service's
/// owner and objects, and the signals that keep them current.
struct BusSession {
    let address: String
    /// ModemManager's and NetworkManager's mirrors.
    private(set) var services: [ServiceMirror]
    let timeoutMilliseconds: Int
    let logger: Logger
    /// Called after each change with the mirrors and a line saying how the bus is.
    var onChange: ([ServiceMirror], String) -> Void = { _, _ in }

    init(address: String, services: [ServiceMirror], timeoutMilliseconds: Int, logger: Logger) {
        self.address = address
        self.services = services
        self.timeoutMilliseconds = timeoutMilliseconds
        self.logger = logger
    }

    /// Connects, reads both services, then follows their signals until the bus goes away or `stopDescriptor` is
    /// readable. Ends with every mirror forgotten, unless it stopped. Returns whether it connected at all.
    @discardableResult
    mutating func run(stopDescriptor: Int32) -> Bool {
        let connection: DBusConnection
        do {
            connection = try DBusConnection(address: address, timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            logger.debug("no system bus at \(address): \(error)")
            forgetAll(because: "no system bus")
            onChange(services, "system bus: not reachable at \(address): \(error)")
            return false
        }
        let busLine = "system bus: \(address)"
        do {
            for service in services {
                for rule in Self.matchRules(for: service.name) {
                    _ = try connection.call(
                        .methodCall(
                            destination: DBusConnection.bus, path: "/org/freedesktop/DBus", interface: DBusConnection.bus,
                            member: "AddMatch", body: [.string(rule)]), timeoutMilliseconds: timeoutMilliseconds)
                }
            }
            for index in services.indices { try refresh(index, on: connection) }
            onChange(services, busLine)
            while true {
                var changed = false
                while let message = try connection.nextMessage() { changed = try handle(message, on: connection) || changed }
                if changed { onChange(services, busLine) }
                var descriptors = [
                    pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0),
                ]
                _ = try? SystemCall.run("poll") { poll(&descriptors, 2, -1) }
                if descriptors[1].revents != 0 { return true }
                if descriptors[0].revents != 0 { try connection.readAvailable() }
            }
        } catch {
            logger.notice("the system bus connection ended: \(error); radio details are absent until it returns")
            forgetAll(because: "the system bus went away")
            onChange(services, "system bus: lost (\(error)); waiting for it to return")
        }
        return true
    }

    /// The signals followed for `service`: its owner changing, its objects coming and going, their properties.
    static func matchRules(for service: String) -> [String] {
        [
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',"
                + "arg0='\(service)'",
            "type='signal',sender='\(service)',interface='\(ServiceMirror.objectManager)'",
            "type='signal',sender='\(service)',interface='\(ServiceMirror.properties)',member='PropertiesChanged'",
        ]
    }

    /// Applies one message; returns whether a mirror changed.
    private mutating func handle(_ message: DBusMessage, on connection: DBusConnection) throws(DBusError) -> Bool {
        if message.kind == .signal, message.sender == DBusConnection.bus, message.member == "NameOwnerChanged",
            message.signature == "sss", let name = message.body[0].string, let newOwner = message.body[2].string,
            let index = services.firstIndex(where: { $0.name == name })
        {
            if newOwner.isEmpty {
                logger.notice("\(services[index].label) left the bus; its details are absent until it returns")
                services[index].leave(because: "not on the bus")
            } else {
                logger.notice("\(services[index].label) joined the bus")
                services[index].owner = newOwner
                try load(index, on: connection)
            }
            return true
        }
        var changed = false
        for index in services.indices where services[index].apply(message) { changed = true }
        return changed
    }

    /// Asks who owns the service's name, and loads its objects if anyone does.
    private mutating func refresh(_ index: Int, on connection: DBusConnection) throws(DBusError) {
        do {
            let answer = try connection.call(
                .methodCall(
                    destination: DBusConnection.bus, path: "/org/freedesktop/DBus", interface: DBusConnection.bus,
                    member: "GetNameOwner", body: [.string(services[index].name)]), timeoutMilliseconds: timeoutMilliseconds)
            services[index].owner = answer.body.first?.string
        } catch .errorReply {
            logger.info("\(services[index].label) is not on the bus; its details are absent until it joins")
            services[index].leave(because: "not on the bus")
            return
        }
        try load(index, on: connection)
    }

    /// Loads every object of a service that is on the bus. A service that does not answer in time, answers with an
    /// error or with the wrong type is logged and left without details until its owner changes; only the bus
    /// itself failing ends the session.
    private mutating func load(_ index: Int, on connection: DBusConnection) throws(DBusError) {
        let label = services[index].label
        do {
            try services[index].load(try connection.call(services[index].loadingCall, timeoutMilliseconds: timeoutMilliseconds))
            logger.info("\(label): read \(services[index].objects.count) objects")
        } catch {
            switch error {
            case .timedOut, .errorReply, .malformed:
                logger.warning("\(label) \(Self.words(for: error)); its details are absent until it rejoins the bus")
                services[index].forget(because: Self.words(for: error))
            default:
                throw error
            }
        }
    }

    private static func words(for error: DBusError) -> String {
        switch error {
        case .timedOut(_, let milliseconds): "did not answer GetManagedObjects within \(milliseconds) ms"
        case .errorReply(let name, let message): "answered GetManagedObjects with \(name)\(message.isEmpty ? "" : ": \(message)")"
        case .malformed(let words): "answered with the wrong type (\(words))"
        default: "\(error)"
        }
    }

    private mutating func forgetAll(because problem: String) {
        for index in services.indices {
            services[index].leave(because: problem)
        }
    }
}
