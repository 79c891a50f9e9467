import NetworkReachabilityLinux
import NetworkReachabilityPOSIX
import NetworkReachabilityCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A client connection to a D-Bus bus over a Unix socket: EXTERNAL authentication, `Hello`, and messages sent and
/// received. Used by one thread, which blocks in `poll` on ``descriptor`` and calls ``receive(allowance:_:)``.
///
/// Nothing waits for an answer but `Hello`: calls are sent, and their answers arrive among the other messages, so
/// no message is ever queued while a call waits.
final class DBusConnection {
    /// The socket, non-blocking.
    let descriptor: Int32
    /// The name the bus gave this connection.
    private(set) var uniqueName = ""
    private var reader = DBusMessageReader()
    /// What one `recv` reads into, kept between reads.
    private var chunk = [UInt8](repeating: 0, count: DBusConnection.chunkLength)
    private var nextSerial: UInt32 = 1
    private var isClosed = false

    /// The most one `recv` reads, and so the most a discarded message is held at once.
    static let chunkLength = 65536
    /// The most `recv`s one ``receive(allowance:_:)`` makes, so that a sender who never stops cannot keep the
    /// reading thread from its stop and its deadlines.
    static let readsPerTurn = 64

    /// Connects to the bus at `address` (`unix:path=…` or `unix:abstract=…`; the first usable of a `;` list),
    /// authenticates as this process's user and says `Hello`.
    ///
    /// - Throws: ``DBusError`` when no listed address can be used, the bus is not there or refuses us, or it does
    ///   not answer within `timeoutMilliseconds`.
    init(address: String, timeoutMilliseconds: Int) throws(DBusError) {
        let socketAddress = try Self.socketAddress(of: address)
        do {
            descriptor = try SystemCall.run("socket") {
                socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            }
        } catch { throw .system("\(error)") }
        do {
            try Self.connectSocket(descriptor, to: socketAddress)
            _ = try SystemCall.run("fcntl") { fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) }
        } catch {
            // Every stored property is set, so `deinit` runs after the throw: `close()` keeps it from closing again.
            close()
            throw .system("\(error)")
        }
        do {
            try authenticate(timeoutMilliseconds: timeoutMilliseconds)
            uniqueName = try hello(timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// The bus's own name.
    static let bus = "org.freedesktop.DBus"

    /// Closes the socket.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        SystemCall.close(descriptor)
    }

    /// What was done with the messages received so far.
    var tally: DBusMessageReader.Tally { reader.tally }

    // MARK: - Messages

    /// Sends `message` with the next serial, and returns the serial.
    @discardableResult
    func send(_ message: DBusMessage, timeoutMilliseconds: Int = 5000) throws(DBusError) -> UInt32 {
        let serial = nextSerial
        nextSerial = nextSerial == UInt32.max ? 1 : nextSerial + 1
        try write(message.encoded(serial: serial), timeoutMilliseconds: timeoutMilliseconds)
        return serial
    }

    /// Reads what the socket holds now, at most ``readsPerTurn`` reads, and hands each whole message that
    /// `allowance` wants to `handle`, in order; the rest are discarded as their bytes arrive.
    ///
    /// - Returns: whether it stopped at its bound of reads, with more perhaps waiting.
    /// - Throws: ``DBusError/disconnected`` at the end of the stream, ``DBusError/malformed(_:)`` when the stream
    ///   cannot be read on.
    @discardableResult
    func receive(
        allowance: DBusMessageReader.Allowance, _ handle: (DBusMessage) throws(DBusError) -> Void
    ) throws(DBusError) -> Bool {
        for _ in 0..<Self.readsPerTurn {
            while let message = try reader.next(allowance: allowance) { try handle(message) }
            guard try readChunk() else { return false }
        }
        while let message = try reader.next(allowance: allowance) { try handle(message) }
        return true
    }

    /// One `recv` into the reader; returns false when the socket had nothing.
    private func readChunk() throws(DBusError) -> Bool {
        let outcome: SystemCall.Outcome<Int>
        do {
            outcome = try SystemCall.runNonBlocking("recv") {
                chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            }
        } catch { throw .system("\(error)") }
        guard case .completed(let count) = outcome else { return false }
        guard count > 0 else { throw .disconnected }
        chunk.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        return true
    }

    /// Says `Hello` and waits for the name the bus gives; nothing else can be addressed to a connection before.
    private func hello(timeoutMilliseconds: Int) throws(DBusError) -> String {
        let serial = try send(
            .methodCall(destination: Self.bus, path: "/org/freedesktop/DBus", interface: Self.bus, member: "Hello"),
            timeoutMilliseconds: timeoutMilliseconds)
        let deadline = MonotonicClock.milliseconds() + timeoutMilliseconds
        var answer: DBusMessage?
        while answer == nil {
            let left = deadline - MonotonicClock.milliseconds()
            guard left > 0, try waitReadable(milliseconds: left) else {
                throw .timedOut(method: "org.freedesktop.DBus.Hello", milliseconds: timeoutMilliseconds)
            }
            try receive(allowance: { header in
                header.replySerial == serial && header.sender == Self.bus ? Self.busAnswerLength : 0
            }) { message in answer = message }
        }
        guard let answer, answer.kind == .methodReturn, let name = answer.body.first?.string else {
            throw .errorReply(name: answer?.errorName ?? "", message: answer?.body.first?.string ?? "")
        }
        return name
    }

    /// The longest answer or signal of the bus itself the client takes: names are at most 255 bytes.
    static let busAnswerLength = 4096

    // MARK: - The socket

    private func waitReadable(milliseconds: Int) throws(DBusError) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        do {
            return try SystemCall.run("poll") { poll(&entry, 1, Int32(clamping: milliseconds)) } > 0
        } catch { throw .system("\(error)") }
    }

    private func write(_ bytes: [UInt8], timeoutMilliseconds: Int) throws(DBusError) {
        var sent = 0
        let deadline = MonotonicClock.milliseconds() + timeoutMilliseconds
        while sent < bytes.count {
            let outcome: SystemCall.Outcome<Int>
            do {
                outcome = try SystemCall.runNonBlocking("send") {
                    bytes.withUnsafeBytes {
                        libcSend(descriptor, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                    }
                }
            } catch { throw .system("\(error)") }
            switch outcome {
            case .completed(let count): sent += count
            case .wouldBlock:
                var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                let left = deadline - MonotonicClock.milliseconds()
                guard left > 0, (try? SystemCall.run("poll") { poll(&entry, 1, Int32(clamping: left)) }) ?? 0 > 0 else {
                    throw .timedOut(method: "send", milliseconds: timeoutMilliseconds)
                }
            }
        }
    }

    /// The SASL exchange: a NUL byte, `AUTH EXTERNAL` with our uid in hex, `OK`, `BEGIN`.
    private func authenticate(timeoutMilliseconds: Int) throws(DBusError) {
        let uid = Array(String(getuid()).utf8).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
        }.joined()
        try write([0] + Array("AUTH EXTERNAL \(uid)\r\n".utf8), timeoutMilliseconds: timeoutMilliseconds)
        let deadline = MonotonicClock.milliseconds() + timeoutMilliseconds
        var line: [UInt8] = []
        var byte: UInt8 = 0
        // One byte at a time: nothing the bus sends after its line may be taken for part of it.
        while line.last != UInt8(ascii: "\n") {
            guard line.count < 512 else { throw .authenticationRejected("an over-long line") }
            let outcome: SystemCall.Outcome<Int>
            do {
                outcome = try SystemCall.runNonBlocking("recv") { recv(descriptor, &byte, 1, 0) }
            } catch { throw .system("\(error)") }
            switch outcome {
            case .completed(0): throw .disconnected
            case .completed: line.append(byte)
            case .wouldBlock:
                let left = deadline - MonotonicClock.milliseconds()
                guard left > 0, try waitReadable(milliseconds: left) else {
                    throw .timedOut(method: "AUTH EXTERNAL", milliseconds: timeoutMilliseconds)
                }
            }
        }
        let text = String(decoding: line, as: UTF8.self).trimmingSuffix("\n").trimmingSuffix("\r")
        guard text.hasPrefix("OK ") else { throw .authenticationRejected(text) }
        try write(Array("BEGIN\r\n".utf8), timeoutMilliseconds: timeoutMilliseconds)
    }

    private static func connectSocket(_ descriptor: Int32, to address: (bytes: [UInt8], isAbstract: Bool))
        throws(ReachabilityError)
    {
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        let path = (address.isAbstract ? [0] : []) + address.bytes
        guard path.count < capacity else { throw .systemCallFailed(call: "connect", errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            for (index, byte) in path.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + path.count + (address.isAbstract ? 0 : 1))
        _ = try SystemCall.run("connect") {
            withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
            }
        }
    }

    /// The socket a bus address names: the first `unix:path=` or `unix:abstract=` entry, its value unescaped.
    static func socketAddress(of address: String) throws(DBusError) -> (bytes: [UInt8], isAbstract: Bool) {
        for entry in address.split(separator: ";") {
            guard entry.hasPrefix("unix:") else { continue }
            for pair in entry.dropFirst(5).split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0] == "path" || parts[0] == "abstract" else { continue }
                guard let bytes = unescaped(parts[1]) else { throw .unsupportedAddress(address) }
                return (bytes, parts[0] == "abstract")
            }
        }
        throw .unsupportedAddress(address)
    }

    /// A D-Bus address value with its `%XX` escapes decoded.
    private static func unescaped(_ value: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var iterator = Array(value.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                let decoded = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(decoded)
        }
        return bytes.isEmpty ? nil : bytes
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
