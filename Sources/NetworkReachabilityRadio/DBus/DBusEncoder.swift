/// Writes D-Bus values in little-endian byte order, padded as the wire protocol requires. Offsets are relative to
/// the start of the message.
struct DBusEncoder {
    private(set) var bytes: [UInt8] = []

    /// Pads with zeros to the next multiple of `boundary`.
    mutating func align(_ boundary: Int) {
        while bytes.count % boundary != 0 { bytes.append(0) }
    }

    /// Writes `value` after the padding its type needs.
    mutating func write(_ value: DBusValue) {
        align(value.type.alignment)
        switch value {
        case .byte(let byte): bytes.append(byte)
        case .boolean(let flag): append(UInt64(flag ? 1 : 0), width: 4)
        case .int16(let number): append(UInt64(UInt16(bitPattern: number)), width: 2)
        case .uint16(let number): append(UInt64(number), width: 2)
        case .int32(let number): append(UInt64(UInt32(bitPattern: number)), width: 4)
        case .uint32(let number), .unixFD(let number): append(UInt64(number), width: 4)
        case .int64(let number): append(UInt64(bitPattern: number), width: 8)
        case .uint64(let number): append(number, width: 8)
        case .double(let number): append(number.bitPattern, width: 8)
        case .string(let text), .objectPath(let text):
            append(UInt64(text.utf8.count), width: 4)
            bytes.append(contentsOf: text.utf8)
            bytes.append(0)
        case .signature(let text):
            bytes.append(UInt8(truncatingIfNeeded: text.utf8.count))
            bytes.append(contentsOf: text.utf8)
            bytes.append(0)
        case .variant(let inner):
            write(.signature(inner.type.description))
            write(inner)
        case .structure(let fields):
            for field in fields { write(field) }
        case .dictionaryEntry(let key, let value):
            write(key)
            write(value)
        case .bytes(let content):
            append(UInt64(content.count), width: 4)
            bytes.append(contentsOf: content)
        case .array(let element, let elements):
            let lengthOffset = bytes.count
            append(0, width: 4)
            align(element.alignment)
            let start = bytes.count
            for element in elements { write(element) }
            let length = UInt32(bytes.count - start)
            for index in 0..<4 { bytes[lengthOffset + index] = UInt8(truncatingIfNeeded: length >> (8 * index)) }
        }
    }

    private mutating func append(_ number: UInt64, width: Int) {
        for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: number >> (8 * index))) }
    }
}
