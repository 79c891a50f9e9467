/// A complete D-Bus type, as a signature spells it: `u`, `as`, `a{sv}`, `(ub)`, `v`.
package indirect enum DBusType: Hashable, Sendable, CustomStringConvertible {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double, string, objectPath, signature, unixFD
    case array(DBusType)
    case structure([DBusType])
    case dictionaryEntry(key: DBusType, value: DBusType)
    case variant

    /// The deepest nesting of arrays, and of structures, the specification allows each.
    static let maximumNesting = 32

    /// The boundary a value of this type starts on.
    var alignment: Int {
        switch self {
        case .byte, .signature, .variant: 1
        case .int16, .uint16: 2
        case .boolean, .int32, .uint32, .string, .objectPath, .unixFD, .array: 4
        case .int64, .uint64, .double, .structure, .dictionaryEntry: 8
        }
    }

    /// Whether the type is basic (a dictionary key may only be basic).
    var isBasic: Bool {
        switch self {
        case .array, .structure, .dictionaryEntry, .variant: false
        default: true
        }
    }

    /// The type's signature.
    package var description: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .array(let element): "a\(element)"
        case .structure(let fields): "(\(fields.map(\.description).joined()))"
        case .dictionaryEntry(let key, let value): "{\(key)\(value)}"
        case .variant: "v"
        }
    }

    /// The complete types a signature lists, in order.
    ///
    /// - Throws: ``DBusError/malformed(_:)`` for a signature that is longer than 255 bytes, names an unknown type,
    ///   nests too deeply, or has a dictionary entry outside an array or with a key that is not basic.
    package static func parse(_ signature: String) throws(DBusError) -> [DBusType] {
        let codes = Array(signature.utf8)
        guard codes.count <= 255 else { throw .malformed("signature longer than 255 bytes") }
        var position = 0
        var types: [DBusType] = []
        while position < codes.count {
            types.append(try parseOne(codes, &position, arrays: 0, structures: 0, inArray: false))
        }
        return types
    }

    /// The one complete type a variant's signature must name.
    static func parseSingle(_ signature: String) throws(DBusError) -> DBusType {
        let types = try parse(signature)
        guard types.count == 1, let type = types.first else {
            throw .malformed("variant signature '\(signature)' is not one complete type")
        }
        return type
    }

    private static func parseOne(
        _ codes: [UInt8], _ position: inout Int, arrays: Int, structures: Int, inArray: Bool
    ) throws(DBusError) -> DBusType {
        guard position < codes.count else { throw .malformed("signature ends inside a type") }
        let code = codes[position]
        position += 1
        switch code {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .boolean
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "h"): return .unixFD
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            guard arrays < maximumNesting else { throw .malformed("arrays nested deeper than \(maximumNesting)") }
            return .array(try parseOne(codes, &position, arrays: arrays + 1, structures: structures, inArray: true))
        case UInt8(ascii: "("):
            guard structures < maximumNesting else { throw .malformed("structures nested deeper than \(maximumNesting)") }
            var fields: [DBusType] = []
            while position < codes.count, codes[position] != UInt8(ascii: ")") {
                fields.append(try parseOne(codes, &position, arrays: arrays, structures: structures + 1, inArray: false))
            }
            guard position < codes.count, !fields.isEmpty else { throw .malformed("unterminated or empty structure") }
            position += 1
            return .structure(fields)
        case UInt8(ascii: "{"):
            guard inArray, structures < maximumNesting else { throw .malformed("dictionary entry outside an array") }
            let key = try parseOne(codes, &position, arrays: arrays, structures: structures + 1, inArray: false)
            guard key.isBasic else { throw .malformed("dictionary key of type \(key) is not basic") }
            let value = try parseOne(codes, &position, arrays: arrays, structures: structures + 1, inArray: false)
            guard position < codes.count, codes[position] == UInt8(ascii: "}") else {
                throw .malformed("dictionary entry without exactly two types")
            }
            position += 1
            return .dictionaryEntry(key: key, value: value)
        default:
            throw .malformed("unknown type code \(code) in a signature")
        }
    }
}
