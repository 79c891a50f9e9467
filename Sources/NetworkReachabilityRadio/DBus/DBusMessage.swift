/// One D-Bus message: a method call, its return or error, or a signal, with its header and body. The header's
/// fields read as the message's own (`message.sender`).
@dynamicMemberLookup
package struct DBusMessage: Sendable, Equatable {
    /// The message's type.
    package enum Kind: UInt8, Sendable {
        case methodCall = 1, methodReturn, error, signal
    }

    /// What it is, who sent it and to whom; a decoded header also says its layout on the wire.
    package var header: DBusHeader
    package var body: [DBusValue] = []

    /// A field of the header.
    package subscript<Value>(dynamicMember field: WritableKeyPath<DBusHeader, Value>) -> Value {
        get { header[keyPath: field] }
        set { header[keyPath: field] = newValue }
    }

    /// The body's signature, from its values.
    package var signature: String { body.map(\.type.description).joined() }

    /// Makes a message; the fields its kind requires are the caller's to give.
    package init(
        kind: Kind, path: String? = nil, interface: String? = nil, member: String? = nil, errorName: String? = nil,
        replySerial: UInt32? = nil, destination: String? = nil, sender: String? = nil, body: [DBusValue] = []
    ) {
        header = DBusHeader(kind: kind)
        header.path = path
        header.interface = interface
        header.member = member
        header.errorName = errorName
        header.replySerial = replySerial
        header.destination = destination
        header.sender = sender
        self.body = body
    }

    /// Two messages are equal when they are the same bytes on the wire (whatever byte order they arrived in, and a
    /// NaN equal to itself).
    package static func == (lhs: DBusMessage, rhs: DBusMessage) -> Bool {
        lhs.encoded(serial: lhs.serial) == rhs.encoded(serial: rhs.serial)
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
        field(1, header.path.map(DBusValue.objectPath))
        field(2, header.interface.map(DBusValue.string))
        field(3, header.member.map(DBusValue.string))
        field(4, header.errorName.map(DBusValue.string))
        field(5, header.replySerial.map(DBusValue.uint32))
        field(6, header.destination.map(DBusValue.string))
        field(7, header.sender.map(DBusValue.string))
        if !self.body.isEmpty { field(8, .signature(signature)) }
        var fixed = DBusEncoder()
        for byte in [UInt8(ascii: "l"), header.kind.rawValue, header.flags, 1] { fixed.write(.byte(byte)) }
        fixed.write(.uint32(UInt32(body.bytes.count)))
        fixed.write(.uint32(serial))
        fixed.write(.array(element: .structure([.byte, .variant]), fields))
        fixed.align(8)
        return fixed.bytes + body.bytes
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
        self.header = header
        // The header's length is a multiple of 8, so alignment counted from the body's start is the message's.
        var decoder = DBusDecoder(body, isBigEndian: header.isBigEndian)
        for type in try DBusType.parse(header.signature) { self.body.append(try decoder.read(type)) }
        guard decoder.isAtEnd else { throw .malformed("bytes after the body") }
    }
}
