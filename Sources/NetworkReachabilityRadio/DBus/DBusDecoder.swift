/// Reads D-Bus values from a message's bytes, checking every length, boundary and padding before it reads: bytes
/// from the bus are outside input, and a message that breaks the rules is an error, never a crash.
///
/// Offsets and alignment are relative to the start of the message, as the wire protocol defines them.
struct DBusDecoder {
    private let bytes: [UInt8]
    private let isBigEndian: Bool
    /// Where the next read starts.
    private(set) var offset: Int
    /// Where reads must end: the end of the message, or of the array being read.
    private var limit: Int

    /// The deepest nesting of containers of any kind (arrays, structures, variants) the specification allows.
    static let maximumDepth = 64
    /// The longest array the specification allows.
    static let maximumArrayLength = 1 << 26

    init(_ bytes: [UInt8], isBigEndian: Bool, offset: Int = 0) {
        self.bytes = bytes
        self.isBigEndian = isBigEndian
        self.offset = offset
        limit = bytes.count
    }

    /// Whether every byte up to the end has been read.
    var isAtEnd: Bool { offset == limit }

    /// Reads one value of `type`.
    mutating func read(_ type: DBusType, depth: Int = 0) throws(DBusError) -> DBusValue {
        guard depth <= Self.maximumDepth else { throw .malformed("values nested deeper than \(Self.maximumDepth)") }
        try align(type.alignment)
        switch type {
        case .byte: return .byte(try fixed(1).first ?? 0)
        case .boolean:
            let value = try uint32()
            guard value <= 1 else { throw .malformed("boolean \(value)") }
            return .boolean(value == 1)
        case .int16: return .int16(Int16(bitPattern: UInt16(truncatingIfNeeded: try unsigned(2))))
        case .uint16: return .uint16(UInt16(truncatingIfNeeded: try unsigned(2)))
        case .int32: return .int32(Int32(bitPattern: try uint32()))
        case .uint32: return .uint32(try uint32())
        case .unixFD: return .unixFD(try uint32())
        case .int64: return .int64(Int64(bitPattern: try unsigned(8)))
        case .uint64: return .uint64(try unsigned(8))
        case .double: return .double(Double(bitPattern: try unsigned(8)))
        case .string: return .string(try text(length: Int(try uint32())))
        case .objectPath:
            let path = try text(length: Int(try uint32()))
            guard path.hasPrefix("/") else { throw .malformed("object path '\(path)'") }
            return .objectPath(path)
        case .signature: return .signature(try signatureText())
        case .variant:
            let inner = try DBusType.parseSingle(try signatureText())
            return .variant(try read(inner, depth: depth + 1))
        case .structure(let fields):
            var values: [DBusValue] = []
            for field in fields { values.append(try read(field, depth: depth + 1)) }
            return .structure(values)
        case .dictionaryEntry(let key, let value):
            return .dictionaryEntry(try read(key, depth: depth + 1), try read(value, depth: depth + 1))
        case .array(let element):
            let length = Int(try uint32())
            guard length <= Self.maximumArrayLength else { throw .malformed("array of \(length) bytes") }
            try align(element.alignment)
            guard length <= limit - offset else { throw .malformed("array of \(length) bytes past the end") }
            if element == .byte { return .bytes(Array(try fixed(length))) }
            let end = offset + length
            let outer = limit
            limit = end
            defer { limit = outer }
            var elements: [DBusValue] = []
            while offset < end { elements.append(try read(element, depth: depth + 1)) }
            return .array(element: element, elements)
        }
    }

    /// Skips to the next multiple of `boundary`; the padding must be there and be zero.
    mutating func align(_ boundary: Int) throws(DBusError) {
        let padded = (offset + boundary - 1) / boundary * boundary
        guard padded <= limit else { throw .malformed("padding past the end") }
        guard bytes[offset..<padded].allSatisfy({ $0 == 0 }) else { throw .malformed("non-zero padding") }
        offset = padded
    }

    private mutating func fixed(_ count: Int) throws(DBusError) -> ArraySlice<UInt8> {
        guard count <= limit - offset else { throw .malformed("\(count) bytes past the end") }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    private mutating func unsigned(_ width: Int) throws(DBusError) -> UInt64 {
        let field = try fixed(width)
        let ordered = isBigEndian ? Array(field) : field.reversed()
        return ordered.reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func uint32() throws(DBusError) -> UInt32 {
        try align(4)
        return UInt32(truncatingIfNeeded: try unsigned(4))
    }

    /// `length` bytes of UTF-8 and the NUL after them.
    private mutating func text(length: Int) throws(DBusError) -> String {
        guard length < limit - offset else { throw .malformed("string of \(length) bytes past the end") }
        let content = try fixed(length)
        guard try fixed(1).first == 0, !content.contains(0) else { throw .malformed("string without its NUL") }
        guard let text = String(validating: content, as: UTF8.self) else { throw .malformed("string not UTF-8") }
        return text
    }

    private mutating func signatureText() throws(DBusError) -> String {
        let length = Int(try fixed(1).first ?? 0)
        return try text(length: length)
    }
}
