import NetworkReachabilityCore
import CNetlink

/// Builds one netlink request at the end of a buffer, field by field: header, fixed family header,
/// attributes; the length is filled in last. For messages whose size is known up front, ``KernelRequest``
/// sets the bytes aside once and writes them with ``NetlinkWriter`` directly; this builder grows the buffer
/// per field, which suits requests put together piece by piece (tests, forged messages).
struct NetlinkRequest {
    private(set) var bytes: [UInt8]
    /// Where this request starts in `bytes`.
    private let start: Int

    /// Starts a request of `type` with `flags` (`NLM_F_REQUEST` is added) at the end of `buffer`; append the
    /// family header's fields with ``appendField(_:)``, then attributes.
    init(appendingTo buffer: consuming [UInt8], type: UInt16, flags: UInt16 = 0, sequence: UInt32) {
        bytes = consume buffer
        start = bytes.count
        write(NetlinkWriter.headerSize) { $0.header(length: 0, type: type, flags: flags, sequence: sequence) }
    }

    /// Starts a request in a buffer of its own, with a family header given as bytes.
    init(type: UInt16, flags: UInt16 = 0, sequence: UInt32, familyHeader: [UInt8]) {
        self.init(appendingTo: [], type: type, flags: flags, sequence: sequence)
        bytes.append(contentsOf: familyHeader)
    }

    /// Appends one field of the family header (`rtmsg`, `ifinfomsg`…) in native byte order.
    mutating func appendField<Value: FixedWidthInteger>(_ value: Value) {
        write(MemoryLayout<Value>.size) { $0.field(value) }
    }

    /// Appends an attribute with a raw payload, on an aligned offset.
    mutating func appendAttribute(_ type: UInt16, _ payload: [UInt8]) {
        padToAlignment()
        write(NetlinkWriter.attributeSize(payloadLength: payload.count)) { $0.attribute(type, payload) }
    }

    /// Appends an attribute holding a native-endian `UInt32`, on an aligned offset.
    mutating func appendAttribute(_ type: UInt16, uint32 value: UInt32) {
        padToAlignment()
        write(NetlinkWriter.attributeSize(payloadLength: 4)) { $0.attribute(type, uint32: value) }
    }

    /// The buffer with this request finished: padded, its length filled in.
    consuming func finished() -> [UInt8] {
        padToAlignment()
        let length = UInt32(bytes.count - start)
        bytes.withUnsafeMutableBytes { [start] in
            var writer = NetlinkWriter($0, messageStart: start, offset: start)
            writer.field(length)  // nlmsg_len comes first
        }
        return bytes
    }

    /// The finished request, leaving this one as it is.
    var encoded: [UInt8] {
        let request = self
        return request.finished()
    }

    /// Appends `count` zero bytes and lets `body` write into them.
    private mutating func write(_ count: Int, _ body: (inout NetlinkWriter) -> Void) {
        let offset = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: count))
        bytes.withUnsafeMutableBytes { [start] in
            var writer = NetlinkWriter($0, messageStart: start, offset: offset)
            body(&writer)
        }
    }

    private mutating func padToAlignment() {
        let aligned = start + Int(cnl_nlmsg_align(UInt32(bytes.count - start)))
        if aligned > bytes.count { bytes.append(contentsOf: repeatElement(0, count: aligned - bytes.count)) }
    }
}
