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
        let headerLength = Int(cnl_rta_header_length())
        var offset = 0
        while offset < bytes.count {
            guard let length = bytes.uint16(at: offset).map(Int.init),
                let type = bytes.uint16(at: offset + 2),
                length >= headerLength,
                let payload = bytes.bytes(at: offset + headerLength, count: length - headerLength)
            else { return false }
            body(NetlinkAttribute(type: type & cnl_nla_type_mask(), payload: payload))
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
