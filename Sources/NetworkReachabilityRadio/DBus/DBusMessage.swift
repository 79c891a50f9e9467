/// One D-Bus message: a method call, its return or error, or a signal, with its header fields and body.
package struct DBusMessage: Sendable, Equatable {
    /// The message's type.
    package enum Kind: UInt8, Sendable {
        case methodCall = 1, methodReturn, error, signal
    }

    package var kind: Kind
    /// Set by the sender; the connection sets it on what it sends.
    package var serial: UInt32 = 0
    package var flags: UInt8 = 0
    package var path: String?
    package var interface: String?
    package var member: String?
    package var errorName: String?
    package var replySerial: UInt32?
    package var destination: String?
    package var sender: String?
    package var body: [DBusValue] = []

    /// The body's signature, from its values.
    package var signature: String { body.map(\.type.description).joined() }

    /// The length of the fixed part of the header.
    static let fixedHeaderLength = 16
    /// The longest message accepted: more than any ModemManager or NetworkManager answer, less than memory.
    static let maximumLength = 1 << 25

    /// Makes a message; the fields its kind requires are the caller's to give.
    package init(
        kind: Kind, path: String? = nil, interface: String? = nil, member: String? = nil, errorName: String? = nil,
        replySerial: UInt32? = nil, destination: String? = nil, sender: String? = nil, body: [DBusValue] = []
    ) {
        self.kind = kind
        self.path = path
        self.interface = interface
        self.member = member
        self.errorName = errorName
        self.replySerial = replySerial
        self.destination = destination
        self.sender = sender
        self.body = body
    }

    /// A method call to `destination`.
    package static func methodCall(
        destination: String, path: String, interface: String, member: String, body: [DBusValue] = []
    ) -> DBusMessage {
        DBusMessage(kind: .methodCall, path: path, interface: interface, member: member, destination: destination, body: body)
    }

    // MARK: - Encoding

    /// The message's bytes, little-endian, with `serial`.
    package func encoded(serial: UInt32) -> [UInt8] {
        var body = DBusEncoder()
        for value in self.body { body.write(value) }
        var fields: [DBusValue] = []
        func field(_ code: UInt8, _ value: DBusValue?) {
            if let value { fields.append(.structure([.byte(code), .variant(value)])) }
        }
        field(1, path.map(DBusValue.objectPath))
        field(2, interface.map(DBusValue.string))
        field(3, member.map(DBusValue.string))
        field(4, errorName.map(DBusValue.string))
        field(5, replySerial.map(DBusValue.uint32))
        field(6, destination.map(DBusValue.string))
        field(7, sender.map(DBusValue.string))
        if !self.body.isEmpty { field(8, .signature(signature)) }
        var header = DBusEncoder()
        for byte in [UInt8(ascii: "l"), kind.rawValue, flags, 1] { header.write(.byte(byte)) }
        header.write(.uint32(UInt32(body.bytes.count)))
        header.write(.uint32(serial))
        header.write(.array(element: .structure([.byte, .variant]), fields))
        header.align(8)
        return header.bytes + body.bytes
    }

    // MARK: - Decoding

    /// The whole length of the message that `bytes` begin with, once its fixed header has arrived (`nil` before).
    ///
    /// - Throws: ``DBusError/malformed(_:)`` when the header cannot start a message, or announces one longer than
    ///   ``maximumLength``: a stream cannot be read on after that.
    package static func frameLength(_ bytes: ArraySlice<UInt8>) throws(DBusError) -> Int? {
        guard bytes.count >= fixedHeaderLength else { return nil }
        let start = bytes.startIndex
        let isBigEndian: Bool
        switch bytes[start] {
        case UInt8(ascii: "l"): isBigEndian = false
        case UInt8(ascii: "B"): isBigEndian = true
        default: throw .malformed("byte order \(bytes[start])")
        }
        func uint32(at offset: Int) -> Int {
            let field = bytes[(start + offset)..<(start + offset + 4)]
            return (isBigEndian ? Array(field) : field.reversed()).reduce(0) { $0 << 8 | Int($1) }
        }
        let bodyLength = uint32(at: 4)
        let fieldsLength = uint32(at: 12)
        guard bodyLength <= maximumLength, fieldsLength <= maximumLength else { throw .malformed("message too long") }
        let total = (fixedHeaderLength + fieldsLength + 7) / 8 * 8 + bodyLength
        guard total <= maximumLength else { throw .malformed("message of \(total) bytes") }
        return total
    }

    /// Decodes one whole message.
    ///
    /// - Throws: ``DBusError/malformed(_:)`` for anything the wire protocol does not allow, or a header without the
    ///   fields its type requires.
    package init(decoding bytes: [UInt8]) throws(DBusError) {
        guard try Self.frameLength(bytes[...]) == bytes.count else { throw .malformed("length does not match the header") }
        guard let kind = Kind(rawValue: bytes[1]) else { throw .malformed("message type \(bytes[1])") }
        guard bytes[3] == 1 else { throw .malformed("protocol version \(bytes[3])") }
        let isBigEndian = bytes[0] == UInt8(ascii: "B")
        var decoder = DBusDecoder(bytes, isBigEndian: isBigEndian, offset: 4)
        let bodyLength = Int(try decoder.uint32())
        self.kind = kind
        flags = bytes[2]
        serial = try decoder.uint32()
        guard serial != 0 else { throw .malformed("serial 0") }
        var signature = ""
        let fields = try decoder.read(.array(.structure([.byte, .variant]))).elements ?? []
        for field in fields {
            guard let parts = field.fields, parts.count == 2, case .byte(let code) = parts[0] else { continue }
            let value = parts[1].unwrapped
            switch (code, value) {
            case (1, .objectPath(let text)): path = text
            case (2, .string(let text)): interface = text
            case (3, .string(let text)): member = text
            case (4, .string(let text)): errorName = text
            case (5, .uint32(let number)): replySerial = number
            case (6, .string(let text)): destination = text
            case (7, .string(let text)): sender = text
            case (8, .signature(let text)): signature = text
            case (9, .uint32): continue  // file descriptors, which this client neither asks for nor takes
            case (1...9, _): throw .malformed("header field \(code) of type \(value.type)")
            default: continue  // unknown fields are ignored, as the specification says
            }
        }
        try decoder.align(8)
        guard decoder.offset + bodyLength == bytes.count else { throw .malformed("body length does not match") }
        for type in try DBusType.parse(signature) { body.append(try decoder.read(type)) }
        guard decoder.isAtEnd else { throw .malformed("bytes after the body") }
        switch kind {
        case .methodCall: guard path != nil, member != nil else { throw .malformed("call without path or member") }
        case .signal:
            guard path != nil, interface != nil, member != nil else { throw .malformed("signal without its names") }
        case .methodReturn: guard replySerial != nil else { throw .malformed("return without reply serial") }
        case .error: guard replySerial != nil, errorName != nil else { throw .malformed("error without its name") }
        }
    }
}
