/// The header of one D-Bus message: what it is, who sent it, to whom, and how long its body is. Read before the body,
/// so that a reader can decide from it whether the body is worth its bytes (``DBusMessageReader``).
package struct DBusHeader: Sendable, Equatable {
    package var kind: DBusMessage.Kind
    package var flags: UInt8 = 0
    /// Set by the sender; never 0 on the wire.
    package var serial: UInt32 = 0
    package var path: String?
    package var interface: String?
    package var member: String?
    package var errorName: String?
    package var replySerial: UInt32?
    package var destination: String?
    package var sender: String?
    /// The body's signature; empty for no body.
    package var signature = ""
    /// Whether the message is in big-endian byte order (`B`), rather than little-endian (`l`).
    package var isBigEndian = false
    /// The body's length in bytes.
    package var bodyLength = 0
    /// The header's length in bytes with the padding after it: where the body starts.
    package var length = 0

    /// The message's whole length: header, padding and body.
    package var messageLength: Int { length + bodyLength }

    /// The length of the fixed part of the header.
    static let fixedLength = 16
    /// The longest message the specification allows (128 MiB); the bus's own limit is lower.
    static let maximumMessageLength = 1 << 27

    package init(kind: DBusMessage.Kind) { self.kind = kind }

    // MARK: - Reading the fixed part

    /// What the first 16 bytes of a message say of its size.
    package struct Size: Equatable {
        /// The header fields' length, without the padding after them.
        package var fieldsLength: Int
        /// The body's length.
        package var bodyLength: Int
        /// The header's length with its padding: where the body starts.
        package var headerLength: Int { (DBusHeader.fixedLength + fieldsLength + 7) / 8 * 8 }
        /// The whole message's length.
        package var messageLength: Int { headerLength + bodyLength }
    }

    /// The size of the message that `bytes` begin with, once its fixed part has arrived (`nil` before).
    ///
    /// - Throws: ``DBusError/malformed(_:)`` when the bytes cannot start a message (an unknown byte order, a length
    ///   beyond the specification's): a stream cannot be read on past that.
    package static func size(of bytes: ArraySlice<UInt8>) throws(DBusError) -> Size? {
        guard bytes.count >= fixedLength else { return nil }
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
        let size = Size(fieldsLength: uint32(at: 12), bodyLength: uint32(at: 4))
        guard size.fieldsLength <= maximumMessageLength, size.bodyLength <= maximumMessageLength,
            size.messageLength <= maximumMessageLength
        else { throw .malformed("message of \(size.messageLength) bytes") }
        return size
    }

    // MARK: - Decoding

    /// Decodes the header that `bytes` hold whole (the fixed part, the fields and their padding), and nothing of the
    /// body.
    ///
    /// - Throws: ``DBusError/malformed(_:)`` for anything the wire protocol does not allow, or a header without the
    ///   fields its message type requires.
    package init(decoding bytes: [UInt8]) throws(DBusError) {
        guard let size = try Self.size(of: bytes[...]), size.headerLength == bytes.count else {
            throw .malformed("header length does not match")
        }
        guard let kind = DBusMessage.Kind(rawValue: bytes[1]) else { throw .malformed("message type \(bytes[1])") }
        guard bytes[3] == 1 else { throw .malformed("protocol version \(bytes[3])") }
        self.kind = kind
        flags = bytes[2]
        isBigEndian = bytes[0] == UInt8(ascii: "B")
        bodyLength = size.bodyLength
        length = size.headerLength
        var decoder = DBusDecoder(bytes, isBigEndian: isBigEndian, offset: 8)
        serial = try decoder.uint32()
        guard serial != 0 else { throw .malformed("serial 0") }
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
        guard decoder.isAtEnd else { throw .malformed("header fields do not end at the header's end") }
        switch kind {
        case .methodCall: guard path != nil, member != nil else { throw .malformed("call without path or member") }
        case .signal:
            guard path != nil, interface != nil, member != nil else { throw .malformed("signal without its names") }
        case .methodReturn: guard replySerial != nil else { throw .malformed("return without reply serial") }
        case .error: guard replySerial != nil, errorName != nil else { throw .malformed("error without its name") }
        }
        guard bodyLength > 0 || signature.isEmpty else { throw .malformed("a signature without a body") }
    }
}
