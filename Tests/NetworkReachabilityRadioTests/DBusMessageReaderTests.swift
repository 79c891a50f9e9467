import Testing

@testable import NetworkReachabilityRadio

/// The reader decides from each header whether a message is wanted, discards the rest as their bytes arrive, and
/// holds at most one wanted message.
struct DBusMessageReaderTests {
    private static func signal(from sender: String, member: String = "PropertiesChanged", body: [DBusValue]) -> [UInt8] {
        DBusMessage(
            kind: .signal, path: "/org/freedesktop/ModemManager1/Modem/0", interface: "org.freedesktop.DBus.Properties",
            member: member, sender: sender, body: body
        ).encoded(serial: 7)
    }

    /// Feeds `bytes` in chunks of `chunk` and returns the messages taken, with the most bytes held at once.
    private static func read(
        _ bytes: [UInt8], chunk: Int, allowance: (DBusHeader) -> Int
    ) throws -> (messages: [DBusMessage], largest: Int, tally: DBusMessageReader.Tally) {
        var reader = DBusMessageReader()
        var messages: [DBusMessage] = []
        var largest = 0
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            bytes[offset..<end].withUnsafeBytes { reader.append($0) }
            offset = end
            largest = max(largest, reader.bufferedCount)
            while let message = try reader.next(allowance: allowance) { messages.append(message) }
        }
        return (messages, largest, reader.tally)
    }

    @Test func aSignalOfTheBussMaximumFromAnyoneElseIsDiscardedAsItArrivesAndTheNextIsRead() throws {
        // Given 32 MiB of `ay` from a stranger, then a small signal from the followed service
        let flood = Self.signal(from: ":1.66", body: [.bytes([UInt8](repeating: 0xAB, count: 32 << 20))])
        let wanted = Self.signal(from: ":1.7", body: [.string("org.freedesktop.ModemManager1.Modem")])
        // When it arrives in 64 KiB reads
        let (messages, largest, tally) = try Self.read(flood + wanted, chunk: 65536) { $0.sender == ":1.7" ? 1 << 20 : 0 }
        // Then the stranger's bytes were never held beyond one read, and the followed signal is read whole
        #expect(largest <= 65536 + DBusMessageReader.maximumHeaderLength)
        #expect(messages.map(\.sender) == [":1.7"])
        #expect(tally.delivered == 1 && tally.unwanted == 1 && tally.oversized == 0 && tally.malformed == 0)
        #expect(tally.discardedBytes == flood.count)
    }

    @Test func aWantedMessageLongerThanItsAllowanceIsDiscardedWithoutBeingHeld() throws {
        let long = Self.signal(from: ":1.7", body: [.bytes([UInt8](repeating: 1, count: 300_000))])
        let short = Self.signal(from: ":1.7", body: [.bytes([1, 2, 3])])
        let (messages, largest, tally) = try Self.read(long + short, chunk: 4096) { _ in 1024 }
        #expect(largest <= 4096 + DBusMessageReader.maximumHeaderLength)
        #expect(messages.map(\.body) == [[.bytes([1, 2, 3])]])
        #expect(tally.oversized == 1 && tally.delivered == 1)
    }

    @Test func messagesSplitAnywhereAreReadWholeAndInOrder() throws {
        let messages = (0..<50).map { Self.signal(from: ":1.\($0)", body: [.uint32(UInt32($0)), .strings(["a", "bc"])]) }
        for chunk in [1, 3, 17, 4096] {
            let (read, _, tally) = try Self.read(messages.flatMap { $0 }, chunk: chunk) { _ in 1 << 16 }
            #expect(read.map(\.sender) == (0..<50).map { ":1.\($0)" }, "chunks of \(chunk)")
            #expect(tally.delivered == 50)
        }
    }

    @Test func aMessageWithABrokenHeaderOrBodyIsDroppedAndTheStreamReadOn() throws {
        var broken = Self.signal(from: ":1.7", body: [.boolean(true)])
        broken[broken.count - 4] = 2  // a boolean of 2
        var unknownType = Self.signal(from: ":1.7", body: [.uint32(1)])
        unknownType[1] = 9  // message type 9
        let good = Self.signal(from: ":1.8", body: [.uint32(1)])
        let (messages, _, tally) = try Self.read(broken + unknownType + good, chunk: 5) { _ in 1 << 16 }
        #expect(messages.map(\.sender) == [":1.8"])
        #expect(tally.malformed == 2)
    }

    @Test func bytesThatCannotStartAMessageEndTheStream() {
        var reader = DBusMessageReader()
        [UInt8](repeating: UInt8(ascii: "x"), count: 16).withUnsafeBytes { reader.append($0) }
        #expect(throws: DBusError.malformed("byte order 120")) { try reader.next { _ in 1 << 16 } }
    }

    @Test func anArrayOfBytesIsDecodedAsBytes() throws {
        let bytes = Self.signal(from: ":1.7", body: [.bytes([9, 8, 7])])
        let message = try DBusMessage(decoding: bytes)
        #expect(message.body == [.bytes([9, 8, 7])] && message.signature == "ay")
        // and written as the same bytes as an array of byte values
        let spelled = DBusMessage(
            kind: .signal, path: "/org/freedesktop/ModemManager1/Modem/0", interface: "org.freedesktop.DBus.Properties",
            member: "PropertiesChanged", sender: ":1.7", body: [.array(element: .byte, [.byte(9), .byte(8), .byte(7)])])
        #expect(spelled.encoded(serial: 7) == bytes)
    }
}
