import NetworkReachability

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A client connection to a D-Bus bus over a Unix socket: EXTERNAL authentication, `Hello`, and messages sent and
/// received. Used by one thread, which blocks in `poll` on ``descriptor`` and calls ``readAvailable()``.
final class DBusConnection {
    /// The socket, non-blocking.
    let descriptor: Int32
    /// The name the bus gave this connection.
    private(set) var uniqueName = ""
    /// Messages dropped because they broke the wire protocol.
    private(set) var malformedMessages = 0
    private var received: [UInt8] = []
    /// What one `recv` reads into, kept between reads.
    private var chunk = [UInt8](repeating: 0, count: 65536)
    /// Messages that arrived while a call waited for its reply, handed out first by ``nextMessage()``.
    private var queued: [DBusMessage] = []
    private var nextSerial: UInt32 = 1
    private var isClosed = false

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
            SystemCall.close(descriptor)
            throw .system("\(error)")
        }
        do {
            try authenticate(timeoutMilliseconds: timeoutMilliseconds)
            let hello = try call(
                .methodCall(destination: Self.bus, path: "/org/freedesktop/DBus", interface: Self.bus, member: "Hello"),
                timeoutMilliseconds: timeoutMilliseconds)
            uniqueName = hello.body.first?.string ?? ""
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

    // MARK: - Messages

    /// Sends `message` with the next serial, and returns the serial.
    @discardableResult
    func send(_ message: DBusMessage, timeoutMilliseconds: Int = 5000) throws(DBusError) -> UInt32 {
        let serial = nextSerial
        nextSerial = nextSerial == UInt32.max ? 1 : nextSerial + 1
        try write(message.encoded(serial: serial), timeoutMilliseconds: timeoutMilliseconds)
        return serial
    }

    /// Sends a method call and waits for its answer; messages that arrive meanwhile are kept for
    /// ``nextMessage()``, in order.
    ///
    /// - Throws: ``DBusError/errorReply(name:message:)`` for an error answer, ``DBusError/timedOut(method:milliseconds:)``
    ///   when none comes in time, and what reading fails with.
    func call(_ message: DBusMessage, timeoutMilliseconds: Int) throws(DBusError) -> DBusMessage {
        let serial = try send(message, timeoutMilliseconds: timeoutMilliseconds)
        let deadline = SystemCall.monotonicMilliseconds() + timeoutMilliseconds
        let method = "\(message.interface ?? "").\(message.member ?? "")"
        while true {
            while let framed = try frame() {
                guard framed.replySerial == serial, framed.kind == .methodReturn || framed.kind == .error else {
                    queued.append(framed)
                    continue
                }
                if framed.kind == .error {
                    throw .errorReply(name: framed.errorName ?? "", message: framed.body.first?.string ?? "")
                }
                return framed
            }
            let left = deadline - SystemCall.monotonicMilliseconds()
            guard left > 0, try waitReadable(milliseconds: left) else {
                throw .timedOut(method: method, milliseconds: timeoutMilliseconds)
            }
            try readAvailable()
        }
    }

    /// The next message received and not yet handed out, or `nil` when no whole one has arrived.
    func nextMessage() throws(DBusError) -> DBusMessage? {
        if !queued.isEmpty { return queued.removeFirst() }
        return try frame()
    }

    /// Reads what the socket holds now.
    ///
    /// - Throws: ``DBusError/disconnected`` at the end of the stream.
    func readAvailable() throws(DBusError) {
        while true {
            let outcome: SystemCall.Outcome<Int>
            do {
                outcome = try SystemCall.runNonBlocking("recv") {
                    chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                }
            } catch { throw .system("\(error)") }
            guard case .completed(let count) = outcome else { return }
            guard count > 0 else { throw .disconnected }
            received.append(contentsOf: chunk[..<count])
            guard received.count <= DBusMessage.maximumLength * 2 else { return }
        }
    }

    /// Takes one whole message off the received bytes; one that breaks the protocol inside a sound frame is dropped
    /// and counted. A frame that cannot be sound ends the connection: a stream cannot be read on past it.
    private func frame() throws(DBusError) -> DBusMessage? {
        while let length = try DBusMessage.frameLength(received[...]), received.count >= length {
            let bytes = Array(received[..<length])
            received.removeFirst(length)
            do {
                return try DBusMessage(decoding: bytes)
            } catch {
                malformedMessages += 1
            }
        }
        return nil
    }

    // MARK: - The socket

    private func waitReadable(milliseconds: Int) throws(DBusError) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        do {
            return try SystemCall.run("poll") { poll(&entry, 1, Int32(clamping: milliseconds)) } > 0
        } catch { throw .system("\(error)") }
    }

    private func write(_ bytes: [UInt8], timeoutMilliseconds: Int) throws(DBusError) {
        var sent = 0
        let deadline = SystemCall.monotonicMilliseconds() + timeoutMilliseconds
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
                let left = deadline - SystemCall.monotonicMilliseconds()
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
        let deadline = SystemCall.monotonicMilliseconds() + timeoutMilliseconds
        while !received.contains(UInt8(ascii: "\n")) {
            guard received.count < 512 else { throw .authenticationRejected("an over-long line") }
            let left = deadline - SystemCall.monotonicMilliseconds()
            guard left > 0, try waitReadable(milliseconds: left) else {
                throw .timedOut(method: "AUTH EXTERNAL", milliseconds: timeoutMilliseconds)
            }
            try readAvailable()
        }
        let end = received.firstIndex(of: UInt8(ascii: "\n")) ?? received.endIndex
        let line = String(decoding: received[..<end], as: UTF8.self).trimmingSuffix("\r")
        received.removeSubrange(...end)
        guard line.hasPrefix("OK ") else { throw .authenticationRejected(line) }
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
