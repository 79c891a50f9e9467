import NetworkReachabilityCore
import CNetlink

/// Writes one netlink message's fields, in native byte order, into zeroed bytes set aside for them
/// beforehand: the one place that lays out `nlmsghdr` and `rtattr`.
///
/// Setting the bytes aside in one step and then storing into them costs a few instructions per field, where
/// appending each field to an array costs a hundred.
struct NetlinkWriter {
    private let bytes: UnsafeMutableRawBufferPointer
    /// Where the message starts: attributes are aligned relative to it.
    private let start: Int
    /// Where the next field goes.
    private(set) var offset: Int

    /// A writer for the message that starts at `start` in `bytes`, its next field going at `offset`.
    init(_ bytes: UnsafeMutableRawBufferPointer, messageStart start: Int, offset: Int) {
        self.bytes = bytes
        self.start = start
        self.offset = offset
    }

    /// The aligned size of an attribute with a payload of `length` bytes: header, payload, padding.
    static func attributeSize(payloadLength length: Int) -> Int {
        Int(cnl_rta_align(UInt32(Int(cnl_rta_header_length()) + length)))
    }

    /// The size of `nlmsghdr`.
    static var headerSize: Int { Int(cnl_nlmsg_header_length()) }

    /// Stores `value` and moves past it.
    mutating func field<Value: FixedWidthInteger>(_ value: Value) {
        precondition(offset >= 0 && offset + MemoryLayout<Value>.size <= bytes.count, "netlink field outside its bytes")
        bytes.storeBytes(of: value, toByteOffset: offset, as: Value.self)
        offset += MemoryLayout<Value>.size
    }

    /// Stores the `nlmsghdr` of a request of `length` bytes (`NLM_F_REQUEST` is added to `flags`), addressed
    /// to the kernel.
    mutating func header(length: Int, type: UInt16, flags: UInt16, sequence: UInt32) {
        field(UInt32(length))
        field(type)
        field(flags | UInt16(NLM_F_REQUEST))
        field(sequence)
        field(UInt32(0))  // nlmsg_pid: the kernel
    }

    /// Stores an attribute at the next aligned offset, with `payload` and, when `nulTerminated`, a zero byte
    /// after it; the padding is left as it is (zero).
    mutating func attribute(_ type: UInt16, _ payload: some Collection<UInt8>, nulTerminated: Bool = false) {
        let length = payload.count + (nulTerminated ? 1 : 0)
        alignAttribute()
        let end = offset + Self.attributeSize(payloadLength: length)
        field(UInt16(Int(cnl_rta_header_length()) + length))
        field(type)
        for byte in payload { field(byte) }
        offset = end
    }

    /// Stores an attribute holding `address`'s network-order bytes.
    mutating func attribute(_ type: UInt16, address: IPAddress) {
        address.withUnsafeBytes { attribute(type, $0) }
    }

    /// Stores an attribute holding a native-endian `UInt32`.
    mutating func attribute(_ type: UInt16, uint32 value: UInt32) {
        alignAttribute()
        field(UInt16(Int(cnl_rta_header_length()) + 4))
        field(type)
        field(value)
    }

    private mutating func alignAttribute() {
        offset = start + Int(cnl_nlmsg_align(UInt32(offset - start)))
    }
}
