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

    /// Decodes one whole message.
    ///
    /// - Throws: ``DBusError/malformed(_:)`` for anything the wire protocol does not allow, or a header without the
    ///   fields its type requires.
    package init(decoding bytes: [UInt8]) throws(DBusError) {
        guard let size = try DBusHeader.size(of: bytes[...]), size.messageLength == bytes.count,
            size.headerLength <= bytes.count
        else { throw .malformed("length does not match the header") }
        let header = try DBusHeader(decoding: Array(bytes[..<size.headerLength]))
        try self.init(header: header, body: Array(bytes[size.headerLength...]))
    }

    /// The message whose header is `header` and whose body is `body`, decoded by the header's signature.
    ///
    /// - Throws: ``DBusError/malformed(_:)`` when the body is not of the header's length, or not what its signature
    ///   says.
    package init(header: DBusHeader, body: [UInt8]) throws(DBusError) {
        guard body.count == header.bodyLength else { throw .malformed("body length does not match") }
        self.init(
            kind: header.kind, path: header.path, interface: header.interface, member: header.member,
            errorName: header.errorName, replySerial: header.replySerial, destination: header.destination,
            sender: header.sender)
        serial = header.serial
        flags = header.flags
        // The header's length is a multiple of 8, so alignment counted from the body's start is the message's.
        var decoder = DBusDecoder(body, isBigEndian: header.isBigEndian)
        for type in try DBusType.parse(header.signature) { self.body.append(try decoder.read(type)) }
        guard decoder.isAtEnd else { throw .malformed("bytes after the body") }
    }
}
