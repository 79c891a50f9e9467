import NetworkReachabilityCore
/// Bounds-checked native-endian reads over kernel bytes: every read returns `nil` rather than trap.
extension UnsafeRawBufferPointer {
    /// The byte at `offset`, or `nil` when out of range.
    func byte(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < count else { return nil }
        return self[offset]
    }

    /// A native-endian `UInt16` at `offset`, or `nil` when fewer than 2 bytes remain.
    func uint16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        return loadUnaligned(fromByteOffset: offset, as: UInt16.self)
    }

    /// A native-endian `UInt32` at `offset`, or `nil` when fewer than 4 bytes remain.
    func uint32(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        return loadUnaligned(fromByteOffset: offset, as: UInt32.self)
    }

    /// The bytes `offset..<offset+length`, or `nil` when they do not fit.
    func bytes(at offset: Int, count length: Int) -> UnsafeRawBufferPointer? {
        guard offset >= 0, length >= 0, offset <= count - length else { return nil }
        return UnsafeRawBufferPointer(rebasing: self[offset..<(offset + length)])
    }
}

/// The same reads over a slice of a kernel buffer, relative to the slice's start.
extension ArraySlice where Element == UInt8 {
    /// The byte at `offset` from the start of the slice, or `nil` when out of range.
    func byte(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < count else { return nil }
        return self[startIndex + offset]
    }

    /// A native-endian `UInt16` at `offset`, or `nil` when fewer than 2 bytes remain.
    func uint16(at offset: Int) -> UInt16? {
        withUnsafeBytes { $0.uint16(at: offset) }
    }

    /// A native-endian `UInt32` at `offset`, or `nil` when fewer than 4 bytes remain.
    func uint32(at offset: Int) -> UInt32? {
        withUnsafeBytes { $0.uint32(at: offset) }
    }

    /// A native-endian `Int32` at `offset`, or `nil` when fewer than 4 bytes remain.
    func int32(at offset: Int) -> Int32? {
        uint32(at: offset).map { Int32(bitPattern: $0) }
    }

    /// A native-endian `UInt64` at `offset`, or `nil` when fewer than 8 bytes remain.
    func uint64(at offset: Int) -> UInt64? {
        guard offset >= 0, offset <= count - 8 else { return nil }
        return withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
    }

    /// The sub-slice `offset..<offset+length`, or `nil` when it does not fit.
    func bytes(at offset: Int, count length: Int) -> ArraySlice<UInt8>? {
        guard offset >= 0, length >= 0, offset <= count - length else { return nil }
        return self[(startIndex + offset)..<(startIndex + offset + length)]
    }

    /// The bytes up to the first NUL (or all of them) as UTF-8, for `IFLA_IFNAME`-style strings.
    var cString: String {
        let end = firstIndex(of: 0) ?? endIndex
        return String(decoding: self[startIndex..<end], as: UTF8.self)
    }
}
