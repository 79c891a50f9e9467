import NetworkReachabilityCore
import CNetlink

/// One netlink message: the fixed header's fields and a bounds-checked payload.
struct NetlinkMessage: Sendable, Equatable {
    /// `nlmsg_type`: `RTM_NEWLINK`, `NLMSG_ERROR`, `NLMSG_DONE`…
    var type: UInt16
    /// `nlmsg_flags`.
    var flags: UInt16
    /// `nlmsg_seq`.
    var sequence: UInt32
    /// `nlmsg_pid`: the port the message belongs to.
    var portID: UInt32
    /// The bytes after the 16-byte header, up to `nlmsg_len`.
    var payload: ArraySlice<UInt8>

    static let headerLength = Int(cnl_nlmsg_header_length())

    /// The messages of one datagram, and how many malformed pieces were dropped.
    ///
    /// A header with a length shorter than a header or longer than what remains ends the walk:
    /// nothing after a lying length can be trusted, so the rest counts as one malformed message.
    static func split(_ datagram: ArraySlice<UInt8>) -> (messages: [NetlinkMessage], malformed: Int) {
        var messages: [NetlinkMessage] = []
        let malformed = walk(datagram) { messages.append($0) }
        return (messages, malformed)
    }

    /// Hands each message of one datagram to `body` as it is read, without collecting them; returns how many
    /// malformed pieces were dropped (0 or 1), by the same rule as ``split(_:)``.
    static func walk(_ datagram: ArraySlice<UInt8>, _ body: (NetlinkMessage) -> Void) -> Int {
        var offset = 0
        while offset < datagram.count {
            let remaining = datagram.count - offset
            guard remaining >= headerLength,
                let length = datagram.uint32(at: offset).map(Int.init),
                length >= headerLength, length <= remaining,
                let type = datagram.uint16(at: offset + 4),
                let flags = datagram.uint16(at: offset + 6),
                let sequence = datagram.uint32(at: offset + 8),
                let portID = datagram.uint32(at: offset + 12),
                let payload = datagram.bytes(at: offset + headerLength, count: length - headerLength)
            else { return 1 }
            body(NetlinkMessage(type: type, flags: flags, sequence: sequence, portID: portID, payload: payload))
            offset += Int(cnl_nlmsg_align(UInt32(length)))
        }
        return 0
    }

    /// For an `NLMSG_ERROR` message: the (negative) errno, 0 for an acknowledgement; `nil` if truncated.
    var errorCode: Int32? {
        guard type == UInt16(NLMSG_ERROR) else { return nil }
        return payload.int32(at: 0)
    }

    /// The attributes after a family header of `headerLength` bytes (`rtmsg`, `ifinfomsg`, `ifaddrmsg`),
    /// or `nil` when the payload is shorter than the header or an attribute's length lies.
    func attributes(afterHeaderOfLength headerLength: Int) -> [NetlinkAttribute]? {
        payload.bytes(at: headerLength, count: payload.count - headerLength).flatMap(NetlinkAttribute.parse)
    }

    /// Whether this message ends a dump.
    var isDone: Bool { type == UInt16(NLMSG_DONE) }

    /// The negative errno an `NLMSG_DONE` carries when the dump it ends failed (a table that does not exist,
    /// a filter the kernel refused); `nil` for a dump that succeeded, or any other message.
    var dumpErrorCode: Int32? {
        guard isDone, let code = payload.int32(at: 0), code < 0 else { return nil }
        return code
    }
}
