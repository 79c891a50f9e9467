import CNetlink

/// Builds one netlink request at the end of a buffer: header, fixed family header, attributes; the length is
/// filled in last. Requests of a batch are written one after another into one reused buffer, so encoding
/// allocates nothing once that buffer has grown.
struct NetlinkRequest {
    private(set) var bytes: [UInt8]
    /// Where this request starts in `bytes`.
    private let start: Int

    /// Starts a request of `type` with `flags` (`NLM_F_REQUEST` is added) at the end of `buffer`; append the
    /// family header's fields with ``appendField(_:)``, then attributes.
    init(appendingTo buffer: consuming [UInt8], type: UInt16, flags: UInt16 = 0, sequence: UInt32) {
        bytes = consume buffer
        start = bytes.count
        bytes.appendNative(UInt32(0))  // nlmsg_len, patched by `finished()`
        bytes.appendNative(type)
        bytes.appendNative(flags | UInt16(NLM_F_REQUEST))
        bytes.appendNative(sequence)
        bytes.appendNative(UInt32(0))  // nlmsg_pid: the kernel
    }

    /// Starts a request in a buffer of its own, with a family header given as bytes.
    init(type: UInt16, flags: UInt16 = 0, sequence: UInt32, familyHeader: [UInt8]) {
        self.init(appendingTo: [], type: type, flags: flags, sequence: sequence)
        bytes.append(contentsOf: familyHeader)
    }

    /// Appends one field of the family header (`rtmsg`, `ifinfomsg`…) in native byte order.
    mutating func appendField<Value: FixedWidthInteger>(_ value: Value) {
        bytes.appendNative(value)
    }

    /// Appends an attribute with a raw payload.
    mutating func appendAttribute(_ type: UInt16, _ payload: [UInt8]) {
        appendAttributeHeader(type, payloadLength: payload.count)
        bytes.append(contentsOf: payload)
        padToAlignment()
    }

    /// Appends an attribute holding a native-endian `UInt32`.
    mutating func appendAttribute(_ type: UInt16, uint32 value: UInt32) {
        appendAttributeHeader(type, payloadLength: 4)
        bytes.appendNative(value)
    }

    /// Starts an attribute on an aligned offset: its `rtattr` header, for a payload of `payloadLength` bytes.
    private mutating func appendAttributeHeader(_ type: UInt16, payloadLength: Int) {
        padToAlignment()
        bytes.appendNative(UInt16(Int(cnl_rta_header_length()) + payloadLength))
        bytes.appendNative(type)
    }

    /// The buffer with this request finished: padded, its length filled in.
    consuming func finished() -> [UInt8] {
        padToAlignment()
        let length = UInt32(bytes.count - start)
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: length, toByteOffset: start, as: UInt32.self) }
        return bytes
    }

    /// The finished request, leaving this one as it is.
    var encoded: [UInt8] {
        let request = self
        return request.finished()
    }

    private mutating func padToAlignment() {
        let aligned = start + Int(cnl_nlmsg_align(UInt32(bytes.count - start)))
        if aligned > bytes.count { bytes.append(contentsOf: repeatElement(0, count: aligned - bytes.count)) }
    }
}
