/// One D-Bus value with its type, as decoded from a message or to be encoded into one.
///
/// Compact: only the cases that hold a single value of their own type are boxed, containers hold their elements in
/// one buffer, and an array of bytes (`ay`) is its bytes.
package enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    case unixFD(UInt32)
    /// The elements, all of `element`'s type (which an empty array still needs).
    case array(element: DBusType, [DBusValue])
    /// An array of bytes (`ay`), as the decoder gives it: one byte each, not one value each.
    case bytes([UInt8])
    case structure([DBusValue])
    indirect case dictionaryEntry(DBusValue, DBusValue)
    indirect case variant(DBusValue)

    /// The value's type.
    package var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .unixFD: .unixFD
        case .array(let element, _): .array(element)
        case .bytes: .array(.byte)
        case .structure(let fields): .structure(fields.map(\.type))
        case .dictionaryEntry(let key, let value): .dictionaryEntry(key: key.type, value: value.type)
        case .variant: .variant
        }
    }

    // MARK: - Reading typed values

    /// A variant's content, or the value itself.
    package var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// The value as an unsigned number, from any unsigned type no wider than 32 bits.
    package var uint32: UInt32? {
        switch unwrapped {
        case .uint32(let value): value
        case .uint16(let value): UInt32(value)
        case .byte(let value): UInt32(value)
        default: nil
        }
    }

    /// The value as a signed 32-bit number.
    package var int32: Int32? {
        if case .int32(let value) = unwrapped { return value }
        return nil
    }

    /// The value as a boolean.
    package var bool: Bool? {
        if case .boolean(let value) = unwrapped { return value }
        return nil
    }

    /// The value as a double.
    package var double: Double? {
        if case .double(let value) = unwrapped { return value }
        return nil
    }

    /// A string, object path or signature as text.
    package var string: String? {
        switch unwrapped {
        case .string(let text), .objectPath(let text), .signature(let text): text
        default: nil
        }
    }

    /// An array's elements.
    package var elements: [DBusValue]? {
        switch unwrapped {
        case .array(_, let elements): elements
        case .bytes(let bytes): bytes.map(DBusValue.byte)
        default: nil
        }
    }

    /// A structure's fields.
    package var fields: [DBusValue]? {
        if case .structure(let fields) = unwrapped { return fields }
        return nil
    }

    /// A dictionary with text keys (`a{sv}`, `a{oa{sv}}`…); a later duplicate key wins.
    package var dictionary: [String: DBusValue]? {
        guard let elements else { return nil }
        var dictionary: [String: DBusValue] = [:]
        for element in elements {
            guard case .dictionaryEntry(let key, let value) = element, let text = key.string else { return nil }
            dictionary[text] = value
        }
        return dictionary
    }

    /// A short name of the value's type for log lines: `uint32`, `string`, `array of string`.
    package var typeName: String {
        switch unwrapped {
        case .array(let element, _): "array (\(element))"
        case .bytes: "array (y)"
        case .structure(let fields): "structure (\(fields.map(\.type.description).joined()))"
        default: Self.names[unwrapped.type] ?? unwrapped.type.description
        }
    }

    private static let names: [DBusType: String] = [
        .byte: "byte", .boolean: "boolean", .int16: "int16", .uint16: "uint16", .int32: "int32", .uint32: "uint32",
        .int64: "int64", .uint64: "uint64", .double: "double", .string: "string", .objectPath: "object path",
        .signature: "signature", .unixFD: "file descriptor",
    ]

    // MARK: - Building values

    /// An array of strings (`as`).
    package static func strings(_ texts: [String]) -> DBusValue { .array(element: .string, texts.map(DBusValue.string)) }
}
