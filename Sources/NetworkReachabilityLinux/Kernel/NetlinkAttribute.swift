import NetworkReachabilityCore
import CNetlink

/// One `rtattr`/`nlattr`: its type (with the nested/byte-order bits masked off) and its payload.
struct NetlinkAttribute: Sendable, Equatable {
    var type: UInt16
    var payload: ArraySlice<UInt8>

    /// Parses a run of attributes; `nil` when any length lies (shorter than a header or past the end).
    static func parse(_ bytes: ArraySlice<UInt8>) -> [NetlinkAttribute]? {
        var attributes: [NetlinkAttribute] = []
        guard visit(bytes, { attributes.append($0) }) else { return nil }
        return attributes
    }

    /// Hands each attribute of a run to `body` in order, without collecting them; `false` when a length lies
    /// (the attributes before it have been visited: callers drop the whole message then).
    static func visit(_ bytes: ArraySlice<UInt8>, _ body: (NetlinkAttribute) -> Void) -> Bool {
        bytes.withUnsafeBytes { raw in
            walk(raw) { type, offset, length in
                let start = bytes.startIndex + offset
                body(NetlinkAttribute(type: type, payload: bytes[start..<(start + length)]))
            }
        }
    }

    /// The same walk over raw bytes, handing `body` each attribute's type and payload as a view of `bytes`:
    /// no slice is made, so no reference counting, for the parsers a route change runs once per target.
    static func visit(_ bytes: UnsafeRawBufferPointer, _ body: (UInt16, UnsafeRawBufferPointer) -> Void) -> Bool {
        walk(bytes) { type, offset, length in body(type, UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])) }
    }

    /// Hands `body` each attribute's type and the offset and length of its payload in `bytes`.
    private static func walk(_ bytes: UnsafeRawBufferPointer, _ body: (UInt16, Int, Int) -> Void) -> Bool {
        let headerLength = Int(cnl_rta_header_length())
        var offset = 0
        while offset < bytes.count {
            guard let length = bytes.uint16(at: offset).map(Int.init),
                let type = bytes.uint16(at: offset + 2),
                length >= headerLength,
                bytes.bytes(at: offset + headerLength, count: length - headerLength) != nil
            else { return false }
            body(type & cnl_nla_type_mask(), offset + headerLength, length - headerLength)
            offset += Int(cnl_rta_align(UInt32(length)))
        }
        return true
    }
}

extension Array where Element == NetlinkAttribute {
    /// The payload of the first attribute of `type`, if any.
    func payload(_ type: UInt16) -> ArraySlice<UInt8>? {
        first { $0.type == type }?.payload
    }
}
