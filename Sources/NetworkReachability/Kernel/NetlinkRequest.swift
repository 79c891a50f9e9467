import CNetlink

/// Builds one netlink request: header, fixed family header, attributes; the length is filled in last.
struct NetlinkRequest {
    private(set) var bytes: [UInt8] = []

    /// Starts a request of `type` with `flags` (`NLM_F_REQUEST` is added) and a family header.
    init(type: UInt16, flags: UInt16 = 0, sequence: UInt32, familyHeader: [UInt8]) {
        bytes.reserveCapacity(64)
        bytes.appendNative(UInt32(0))  // nlmsg_len, patched by `encoded`
        bytes.appendNative(type)
        bytes.appendNative(flags | UInt16(NLM_F_REQUEST))
        bytes.appendNative(sequence)
        bytes.appendNative(UInt32(0))  // nlmsg_pid: the kernel
        bytes.append(contentsOf: familyHeader)
        padToAlignment()
    }

    /// Appends an attribute with a raw payload.
    mutating func appendAttribute(_ type: UInt16, _ payload: [UInt8]) {
        bytes.appendNative(UInt16(Int(cnl_rta_header_length()) + payload.count))
        bytes.appendNative(type)
        bytes.append(contentsOf: payload)
        padToAlignment()
    }

    /// Appends an attribute holding a native-endian `UInt32`.
    mutating func appendAttribute(_ type: UInt16, uint32 value: UInt32) {
        var payload: [UInt8] = []
        payload.appendNative(value)
        appendAttribute(type, payload)
    }

    /// The finished request with its length filled in.
    var encoded: [UInt8] {
        var result = bytes
        withUnsafeBytes(of: UInt32(result.count)) { length in
            for index in 0..<4 { result[index] = length[index] }
        }
        return result
    }

    private mutating func padToAlignment() {
        let aligned = Int(cnl_nlmsg_align(UInt32(bytes.count)))
        bytes.append(contentsOf: repeatElement(0, count: aligned - bytes.count))
    }
}
