import NetworkReachabilityLinux
import NetworkReachabilityPOSIX
import Logging
import NetworkReachabilityCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One connection to the bus, from its start to its end, on the reading thread: the match rules, each service's owner
/// and objects, the answers to its calls, and the signals that keep the mirrors current.
///
/// It never waits for an answer: calls go out, their answers arrive among the signals, and a call unanswered by its
/// deadline is a failed attempt, asked again after a backoff (1, 2, 4, 8, 16, then every 30 s) until the service
/// answers or leaves the bus. A late answer is still taken. What a message is, and who sent it, is decided from its
/// header (``allowance(for:)``): nothing from anyone but the bus and the services' owners is decoded.
final class BusSession {
    /// What the session tells its owner after each change.
    struct Report {
        var services: [ServiceMirror]
        /// How the bus is: `system bus: unix:path=…`, or why it is not there.
        var busLine: String
        /// Whether the first read of every service has ended: answered, failed, or the service is absent.
        var firstReadEnded = false
    }

    /// A call sent and not yet answered.
    private struct Call {
        enum Purpose: Equatable {
            case addMatch(String)
            case nameOwner
            /// Which user runs the connection that owns the service's name (`GetConnectionUnixUser`).
            case ownerUser(String)
            case load
            case companion(String)
        }

        var purpose: Purpose
        var service: Int?
        /// Who must answer: the bus, or the owner the service had when the call was sent.
        var answerer: String
        /// When an unanswered call counts as failed; `nil` once it has (a late answer is still taken).
        var deadline: Int?
    }

    /// How one service's reading goes.
    private struct Reading {
        /// Attempts that failed in a row.
        var failures = 0
        /// When to ask again.
        var retryAt: Int?
        /// Why the last attempt failed.
        var failure: String?
        /// Whether the first read has ended: the service's objects and the companions they named were read, or
        /// the service is absent, refused or failed.
        var firstEnded = false
        /// The `GetManagedObjects` calls outstanding, oldest first: at most ``outstandingLoads``.
        var loads: [UInt32] = []
        /// Companions whose `GetAll` was refused (the object went): not asked again until the service is reloaded.
        var unreadable: Set<String> = []
    }

    let address: String
    private(set) var services: [ServiceMirror]
    let timeoutMilliseconds: Int
    let logger: Logger
    /// Called after each change; returns when to be called again (a kept fact lapses), in monotonic milliseconds.
    var onChange: (Report) -> Int? = { _ in nil }
    /// The last report given to ``onChange``.
    private(set) var lastReport: Report

    private var pending: [UInt32: Call] = [:]
    private var readings: [Reading]
    /// Services one of whose followed signals was too long to take: read whole again.
    private var oversized: Set<Int> = []
    private var republishAt: Int?
    private var needsPublish = false
    private var busLine: String
    /// Why the last connection could not be made, if it could not.
    private(set) var connectionFailure: DBusError?

    /// The longest answer to the session's own calls it takes: NetworkManager's objects on a busy laptop are a few
    /// hundred KiB.
    static let answerLength = 8 << 20
    /// The longest signal of a followed service it takes; a longer one has the service read whole again.
    static let signalLength = 1 << 20
    /// How many `GetManagedObjects` calls to one service may be outstanding: the one that timed out, whose late
    /// answer is still welcome, and the one asking again.
    static let outstandingLoads = 2

    init(address: String, services: [ServiceMirror], timeoutMilliseconds: Int, logger: Logger) {
        self.address = address
        self.services = services
        self.timeoutMilliseconds = timeoutMilliseconds
        self.logger = logger
        readings = services.map { _ in Reading() }
        busLine = "system bus: \(address)"
        lastReport = Report(services: services, busLine: busLine)
    }

    /// The delay before attempt `failures + 1`: 1, 2, 4, 8, 16 s, then 30 s.
    static func backoffSeconds(afterFailures failures: Int) -> Int { min(30, 1 << min(max(failures - 1, 0), 5)) }

    // MARK: - Running

    /// Connects, reads both services, then follows their signals until the bus goes away or `stopDescriptor` is
    /// readable. Ends with every mirror forgotten, unless it stopped. Returns whether it connected at all.
    @discardableResult
    func run(stopDescriptor: Int32) -> Bool {
        let connection: DBusConnection
        do {
            connection = try DBusConnection(address: address, timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            connectionFailure = error
            logger.debug("no system bus at \(address): \(error)")
            forgetAll(because: "no system bus")
            busLine = "system bus: not reachable at \(address): \(error)"
            publish()
            return false
        }
        defer { connection.close() }
        do {
            for service in services {
                for rule in Self.matchRules(for: service.name) {
                    try send(Self.busCall("AddMatch", [.string(rule)]), as: .addMatch(rule), on: connection)
                }
            }
            for index in services.indices {
                services[index].problem = "asking the bus whether it runs"
                try askOwner(index, on: connection)
            }
            publish()
            var more = false
            while true {
                let now = MonotonicClock.milliseconds()
                try expire(at: now, on: connection)
                if needsPublish { publish() }
                var descriptors = [
                    pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0),
                ]
                let timeout = more ? 0 : nextDeadline().map { Int32(clamping: max(0, $0 - now)) } ?? -1
                _ = try? SystemCall.run("poll") { poll(&descriptors, 2, timeout) }
                if descriptors[1].revents != 0 { return true }
                if descriptors[0].revents != 0 || more {
                    let before = connection.tally
                    more = try connection.receive(allowance: allowance(for:)) { message throws(DBusError) in
                        try handle(message, on: connection)
                    }
                    logDiscarded(since: before, on: connection)
                    for index in oversized.sorted() {
                        logger.notice(
                            "\(services[index].label) sent a signal over \(Self.signalLength) bytes; reading it whole again")
                        try load(index, on: connection)
                    }
                    oversized = []
                }
                if needsPublish { publish() }
            }
        } catch {
            logger.notice("the system bus connection ended: \(error); radio details are absent until it returns")
            forgetAll(because: "the system bus went away")
            busLine = "system bus: lost (\(error)); waiting for it to return"
            publish()
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

    // MARK: - Deciding from the header

    /// How long a message may be, decided from its header alone: answers to the session's calls from whom they were
    /// sent to, the bus's `NameOwnerChanged`, and the followed signals of a service's current owner; 0 for anything
    /// else, which is then discarded undecoded.
    private func allowance(for header: DBusHeader) -> Int {
        switch header.kind {
        case .methodReturn, .error:
            guard let serial = header.replySerial, let call = pending[serial], header.sender == call.answerer else { return 0 }
            return call.answerer == DBusConnection.bus ? DBusConnection.busAnswerLength : Self.answerLength
        case .signal:
            if header.sender == DBusConnection.bus {
                let isOwnerChange = header.interface == DBusConnection.bus && header.member == "NameOwnerChanged"
                return isOwnerChange ? DBusConnection.busAnswerLength : 0
            }
            guard let sender = header.sender, let index = services.firstIndex(where: { $0.owner == sender }),
                ServiceMirror.follows(interface: header.interface, member: header.member)
            else { return 0 }
            guard header.messageLength <= Self.signalLength else {
                oversized.insert(index)
                return 0
            }
            return Self.signalLength
        case .methodCall:
            return 0
        }
    }

    /// Says, at debug level, what a turn of reading discarded: a flood shows in `--verbose`, and costs nothing else.
    private func logDiscarded(since before: DBusMessageReader.Tally, on connection: DBusConnection) {
        let after = connection.tally
        let count = after.unwanted + after.oversized + after.malformed - before.unwanted - before.oversized - before.malformed
        guard count > 0 else { return }
        logger.debug(
            "skipped \(count) message\(count == 1 ? "" : "s") (\(after.discardedBytes - before.discardedBytes) bytes) that no followed service sent, or too long, or malformed"
        )
    }

    // MARK: - Messages

    private func handle(_ message: DBusMessage, on connection: DBusConnection) throws(DBusError) {
        switch message.kind {
        case .methodReturn, .error:
            try answer(message, on: connection)
        case .signal where message.sender == DBusConnection.bus:
            try ownerChanged(message, on: connection)
        case .signal:
            guard let index = services.firstIndex(where: { $0.owner == message.sender }), services[index].apply(message)
            else { return }
            needsPublish = true
            try readCompanions(index, on: connection)
        case .methodCall:
            return
        }
    }

    private func answer(_ message: DBusMessage, on connection: DBusConnection) throws(DBusError) {
        guard let serial = message.replySerial, let call = pending.removeValue(forKey: serial) else { return }
        guard let index = call.service else {
            if case .addMatch(let rule) = call.purpose, message.kind == .error {
                logger.warning("the bus refused the match rule \(rule): \(message.errorName ?? "")")
            }
            return
        }
        switch call.purpose {
        case .addMatch:
            return
        case .nameOwner:
            if message.kind == .methodReturn, let owner = message.body.first?.string {
                guard services[index].owner != owner || readings[index].loads.isEmpty else { return }
                if services[index].owner == owner {
                    try load(index, on: connection)
                } else {
                    try checkUser(of: owner, for: index, on: connection)
                }
            } else {
                logger.info("\(services[index].label) is not on the bus; its details are absent until it joins")
                leave(index, because: "not on the bus")
            }
        case .ownerUser(let candidate):
            guard message.kind == .methodReturn, message.signature == "u", let user = message.body.first?.uint32 else {
                leave(index, because: "not on the bus")
                return
            }
            guard user == 0 else {
                logger.notice(
                    "\(services[index].label)'s name is owned by \(candidate), a process of user \(user), not root: its word is not taken"
                )
                leave(index, because: "not taken at its word: its name is owned by a process of user \(user), not root")
                return
            }
            services[index].owner = candidate
            services[index].problem = "reading its objects"
            try load(index, on: connection)
        case .load:
            readings[index].loads.removeAll { $0 == serial }
            guard call.answerer == services[index].owner else { return }
            do {
                if message.kind == .error {
                    throw DBusError.errorReply(name: message.errorName ?? "", message: message.body.first?.string ?? "")
                }
                try services[index].load(message)
            } catch {
                fail(index, Self.words(for: error))
                return
            }
            for serial in readings[index].loads { pending[serial] = nil }
            readings[index] = Reading()
            logger.info("\(services[index].label): read \(services[index].objects.count) objects")
            needsPublish = true
            try readCompanions(index, on: connection)
            // A first read ends with the companions its objects named: a bearer says which link a modem's data uses
            readings[index].firstEnded = !isReadingCompanions(index)
        case .companion(let path):
            guard call.answerer == services[index].owner else { return }
            if message.kind == .methodReturn {
                if services[index].loadCompanion(path, message) { needsPublish = true }
            } else {
                logger.debug("\(services[index].label): \(path) answered GetAll with \(message.errorName ?? "")")
                readings[index].unreadable.insert(path)
            }
            if !readings[index].firstEnded, !isReadingCompanions(index) {
                readings[index].firstEnded = true
                needsPublish = true
            }
        }
    }

    /// The bus says a followed name has a new owner, or none.
    private func ownerChanged(_ message: DBusMessage, on connection: DBusConnection) throws(DBusError) {
        guard message.member == "NameOwnerChanged", message.signature == "sss", let name = message.body[0].string,
            let newOwner = message.body[2].string, let index = services.firstIndex(where: { $0.name == name })
        else { return }
        if newOwner.isEmpty {
            logger.notice("\(services[index].label) left the bus; its details are absent until it returns")
            leave(index, because: "not on the bus")
        } else {
            logger.notice("\(services[index].label) joined the bus")
            leave(index, because: "checking who runs it")
            try checkUser(of: newOwner, for: index, on: connection)
        }
    }

    // MARK: - Calls

    private static func busCall(_ member: String, _ body: [DBusValue]) -> DBusMessage {
        .methodCall(
            destination: DBusConnection.bus, path: "/org/freedesktop/DBus", interface: DBusConnection.bus, member: member,
            body: body)
    }

    private func send(
        _ message: DBusMessage, as purpose: Call.Purpose, service: Int? = nil, on connection: DBusConnection
    ) throws(DBusError) {
        let answerer: String
        switch purpose {
        case .addMatch, .nameOwner, .ownerUser: answerer = DBusConnection.bus
        case .load, .companion: answerer = service.flatMap { services[$0].owner } ?? DBusConnection.bus
        }
        let serial = try connection.send(message, timeoutMilliseconds: timeoutMilliseconds)
        pending[serial] = Call(
            purpose: purpose, service: service, answerer: answerer,
            deadline: MonotonicClock.milliseconds() + timeoutMilliseconds)
        if purpose == .load, let service {
            readings[service].loads.append(serial)
            while readings[service].loads.count > Self.outstandingLoads {
                pending[readings[service].loads.removeFirst()] = nil
            }
        }
    }

    private func askOwner(_ index: Int, on connection: DBusConnection) throws(DBusError) {
        try send(Self.busCall("GetNameOwner", [.string(services[index].name)]), as: .nameOwner, service: index, on: connection)
    }

    /// Asks the bus which user runs `owner`, the connection that now owns the service's name: only root's is taken
    /// at its word, since on a bus whose policy lets anyone own the name, any local user could say anything.
    private func checkUser(of owner: String, for index: Int, on connection: DBusConnection) throws(DBusError) {
        services[index].problem = "checking who runs it"
        try send(
            Self.busCall("GetConnectionUnixUser", [.string(owner)]), as: .ownerUser(owner), service: index, on: connection)
    }

    /// Whether `GetAll` calls for the service's companions are outstanding.
    private func isReadingCompanions(_ index: Int) -> Bool {
        pending.values.contains { call in
            guard call.service == index, case .companion = call.purpose else { return false }
            return true
        }
    }

    private func load(_ index: Int, on connection: DBusConnection) throws(DBusError) {
        try send(services[index].loadingCall, as: .load, service: index, on: connection)
    }

    /// Reads the companions the mirror names and does not hold, and drops those no longer named.
    private func readCompanions(_ index: Int, on connection: DBusConnection) throws(DBusError) {
        if services[index].dropUnnamedCompanions() { needsPublish = true }
        let asked = Set(
            pending.values.compactMap { call -> String? in
                guard call.service == index, case .companion(let path) = call.purpose else { return nil }
                return path
            })
        for path in services[index].missingCompanions.subtracting(asked).subtracting(readings[index].unreadable).sorted() {
            guard let call = services[index].companionCall(path) else { continue }
            try send(call, as: .companion(path), service: index, on: connection)
        }
    }

    /// A service's attempt failed: its objects are forgotten, and it is asked again after the backoff.
    private func fail(_ index: Int, _ words: String) {
        readings[index].failures += 1
        readings[index].firstEnded = true
        readings[index].failure = words
        let delay = Self.backoffSeconds(afterFailures: readings[index].failures)
        readings[index].retryAt = MonotonicClock.milliseconds() + delay * 1000
        logger.warning("\(services[index].label) \(words); asking again in \(delay) s")
        services[index].forget(because: "\(words); asking again in \(delay) s")
        needsPublish = true
    }

    /// A service left the bus, or has a new owner: its calls and its objects are forgotten.
    private func leave(_ index: Int, because problem: String) {
        pending = pending.filter { $0.value.service != index }
        readings[index] = Reading(firstEnded: true)
        services[index].leave(because: problem)
        needsPublish = true
    }

    /// Counts calls past their deadline as failed, asks again where a backoff has passed, and notes a settle lapse.
    private func expire(at now: Int, on connection: DBusConnection) throws(DBusError) {
        for (serial, call) in pending where call.deadline.map({ $0 <= now }) == true {
            pending[serial]?.deadline = nil
            guard let index = call.service else {
                logger.warning("the bus did not answer \(call.purpose) within \(timeoutMilliseconds) ms")
                continue
            }
            switch call.purpose {
            case .nameOwner: fail(index, "is unknown: the bus did not say who owns its name within \(timeoutMilliseconds) ms")
            case .ownerUser: fail(index, "is unknown: the bus did not say who runs it within \(timeoutMilliseconds) ms")
            case .load: fail(index, "did not answer GetManagedObjects within \(timeoutMilliseconds) ms")
            case .companion(let path): fail(index, "did not answer GetAll of \(path) within \(timeoutMilliseconds) ms")
            case .addMatch: continue
            }
        }
        for index in readings.indices where readings[index].retryAt.map({ $0 <= now }) == true {
            readings[index].retryAt = nil
            let attempt = readings[index].failures + 1
            services[index].problem = "\(readings[index].failure ?? "no answer"); asking again (attempt \(attempt))"
            if services[index].owner == nil {
                try askOwner(index, on: connection)
            } else {
                try load(index, on: connection)
            }
            needsPublish = true
        }
        if let republishAt, republishAt <= now {
            self.republishAt = nil
            needsPublish = true
        }
    }

    /// The earliest deadline of a call, a retry or a settle lapse.
    private func nextDeadline() -> Int? {
        (pending.values.compactMap(\.deadline) + readings.compactMap(\.retryAt) + [republishAt].compactMap { $0 }).min()
    }

    private func publish() {
        needsPublish = false
        let report = Report(services: services, busLine: busLine, firstReadEnded: readings.allSatisfy(\.firstEnded))
        lastReport = report
        republishAt = onChange(report)
    }

    private static func words(for error: any Error) -> String {
        switch error as? DBusError {
        case .errorReply(let name, let message)?:
            "answered GetManagedObjects with \(name)\(message.isEmpty ? "" : ": \(message)")"
        case .malformed(let words)?: "answered with the wrong type (\(words))"
        default: "\(error)"
        }
    }

    private func forgetAll(because problem: String) {
        for index in services.indices {
            readings[index] = Reading(firstEnded: true)
            services[index].leave(because: problem)
        }
        pending = [:]
    }
}
