import Testing

@testable import NetworkReachabilityRadio

/// The D-Bus wire format: signatures, values and messages, written and read back, and broken bytes refused.
struct DBusCodecTests {
    // Computed: an indirect enum held by a static is reported by LeakSanitizer, which cannot see its boxes.
    private static var properties: DBusValue {
        .array(
            element: .dictionaryEntry(key: .string, value: .variant),
            [
                .dictionaryEntry(.string("AccessTechnologies"), .variant(.uint32(1 << 14))),
                .dictionaryEntry(.string("SignalQuality"), .variant(.structure([.uint32(72), .boolean(true)]))),
                .dictionaryEntry(
                    .string("Ports"),
                    .variant(.array(element: .structure([.string, .uint32]), [.structure([.string("wwan0"), .uint32(2)])]))),
                .dictionaryEntry(.string("Strength"), .variant(.byte(80))),
                .dictionaryEntry(.string("rssi"), .variant(.double(-85.5))),
                .dictionaryEntry(.string("Empty"), .variant(.array(element: .uint64, []))),
            ])
    }

    @Test func signaturesParseToTypesAndBack() throws {
        for signature in ["u", "a{sv}", "a{oa{sa{sv}}}", "(ub)", "a(su)", "sa{sv}as", "yvgxtdnqh", "a(ubay)"] {
            #expect(try DBusType.parse(signature).map(\.description).joined() == signature)
        }
        for broken in ["{sv}", "a{vs}", "a{s}", "(", "()", "a", "z", "a{svs}", String(repeating: "a", count: 33) + "u"] {
            #expect(throws: DBusError.self, "\(broken)") { try DBusType.parse(broken) }
        }
    }

    @Test func aMessageDecodesToWhatWasEncoded() throws {
        var message = DBusMessage(
            kind: .signal, path: "/org/freedesktop/ModemManager1/Modem/0", interface: "org.freedesktop.DBus.Properties",
            member: "PropertiesChanged", sender: ":1.7",
            body: [.string("org.freedesktop.ModemManager1.Modem"), Self.properties, .strings(["Bearers"])])
        let bytes = message.encoded(serial: 42)
        #expect(try DBusHeader.size(of: bytes[...])?.messageLength == bytes.count)
        #expect(try DBusHeader.size(of: bytes[..<15]) == nil)
        message.serial = 42
        let decoded = try DBusMessage(decoding: bytes)
        #expect(decoded == message)
        #expect(decoded.signature == "sa{sv}as")
        #expect(decoded.body[1].dictionary?["SignalQuality"]?.fields?.first?.uint32 == 72)
    }

    @Test func aBigEndianMessageDecodes() throws {
        // `B`, method return, no flags, version 1, body 4 bytes, serial 1; fields: reply serial 7, signature "u"
        let bytes: [UInt8] =
            [0x42, 2, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0x0f]
            + [5, 1, 0x75, 0, 0, 0, 0, 7, 8, 1, 0x67, 0, 1, 0x75, 0, 0] + [0, 0, 0x40, 0]
        let message = try DBusMessage(decoding: bytes)
        #expect(message.kind == .methodReturn && message.replySerial == 7 && message.body == [.uint32(0x4000)])
    }

    @Test func everyTruncationOfAMessageIsRefusedWithoutACrash() throws {
        let bytes = DBusMessage(kind: .signal, path: "/a", interface: "b.c", member: "D", body: [Self.properties])
            .encoded(serial: 1)
        for length in 0..<bytes.count {
            #expect(throws: DBusError.self) { try DBusMessage(decoding: Array(bytes[..<length])) }
        }
    }

    @Test func brokenValuesAreRefused() throws {
        let good = DBusMessage(kind: .methodReturn, replySerial: 3, body: [.boolean(true), .string("ok")]).encoded(serial: 9)
        let bodyStart = good.count - 11  // a boolean (4 bytes), then a string: its length (4), "ok" and its NUL
        var boolean = good
        boolean[bodyStart] = 2
        #expect(throws: DBusError.malformed("boolean 2")) { try DBusMessage(decoding: boolean) }
        var string = good
        string[bodyStart + 4] = 200  // a string length past the end
        #expect(throws: DBusError.self) { try DBusMessage(decoding: string) }
        var order = good
        order[0] = UInt8(ascii: "x")
        #expect(throws: DBusError.malformed("byte order 120")) { try DBusMessage(decoding: order) }
        var serial = good
        for index in 8..<12 { serial[index] = 0 }
        #expect(throws: DBusError.malformed("serial 0")) { try DBusMessage(decoding: serial) }
        var huge = good
        for index in 4..<8 { huge[index] = 0xff }
        #expect(throws: DBusError.self) { try DBusHeader.size(of: huge[...]) }
    }

    @Test func nestingDeeperThanTheSpecificationIsRefused() throws {
        var value = DBusValue.uint32(1)
        for _ in 0..<70 { value = .variant(value) }
        let bytes = DBusMessage(kind: .methodReturn, replySerial: 1, body: [value]).encoded(serial: 1)
        #expect(throws: DBusError.self) { try DBusMessage(decoding: bytes) }
    }

    @Test func busAddressesNameTheirSocket() throws {
        #expect(
            try DBusConnection.socketAddress(of: "unix:path=/run/dbus/system_bus_socket").bytes
                == Array("/run/dbus/system_bus_socket".utf8))
        let abstract = try DBusConnection.socketAddress(of: "tcp:host=x;unix:abstract=/tmp/dbus-%41b,guid=1")
        #expect(abstract.isAbstract && abstract.bytes == Array("/tmp/dbus-Ab".utf8))
        #expect(throws: DBusError.unsupportedAddress("tcp:host=localhost,port=1")) {
            try DBusConnection.socketAddress(of: "tcp:host=localhost,port=1")
        }
    }
}
