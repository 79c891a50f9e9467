/// An IPv4 or IPv6 address, with an optional zone (scope) for IPv6 link-local addresses.
///
/// Parsing is strict, like glibc's `inet_pton`: IPv4 is a dotted quad of decimal octets without
/// leading zeros; IPv6 is RFC 4291 text (one `::` at most, an optional trailing dotted quad) with an
/// optional `%zone`, where the zone is an interface name or index. Formatting follows `inet_ntop`,
/// so addresses print exactly as `ip route get` prints them.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address family.
    public enum Family: String, Sendable, Hashable {
        /// IPv4 (`AF_INET`).
        case ipv4
        /// IPv6 (`AF_INET6`).
        case ipv6
    }

    // The words first and the two bytes last: 34 bytes, not 41 with the family between words. An address is
    // stored several times per listening target.

    /// Bytes 0–7 and 8–15 as big-endian integers, so that numeric order is byte order; IPv4 fills the top four
    /// bytes of `head`. Everything is held inline, the zone too: as an array and a string, every address cost a
    /// heap allocation and every copy reference counting, on every route lookup.
    private let head: UInt64
    private let tail: UInt64
    /// The zone's UTF-8 bytes packed the same way, and how many there are (0: no zone).
    private let zoneHead: UInt64
    private let zoneTail: UInt64

    /// The address family.
    public let family: Family

    private let zoneLength: UInt8

    /// The longest zone: an interface name (`IFNAMSIZ` less its NUL) or index is never longer.
    static let maximumZoneLength = 15

    /// The longest text accepted: an IPv6 address with a maximal dotted quad (45) and a zone.
    static let maximumTextLength = 45 + 1 + 255

    // MARK: - Initialization

    /// Parses an IPv4 or IPv6 address.
    ///
    /// - Parameter text: `192.0.2.1`, `2001:db8::1`, `fe80::1%eth0` or `::ffff:192.0.2.1`.
    /// - Throws: ``ReachabilityError/invalidAddress(_:reason:)`` naming what is wrong.
    public init(_ text: String) throws(ReachabilityError) {
        guard !text.isEmpty else { throw .invalidAddress(text, reason: "empty") }
        guard text.utf8.count <= Self.maximumTextLength else {
            throw .invalidAddress(String(text.prefix(40)) + "…", reason: "too long")
        }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalidAddress(text, reason: "contains characters no address can hold")
        }
        if text.utf8.contains(UInt8(ascii: ":")) {
            var addressPart = Substring(text)
            var zone: String?
            if let percent = text.firstIndex(of: "%") {
                addressPart = text[..<percent]
                let zoneText = text[text.index(after: percent)...]
                guard !zoneText.isEmpty, zoneText.utf8.count <= Self.maximumZoneLength, !zoneText.contains("%"),
                    !zoneText.contains("/")
                else { throw .invalidAddress(text, reason: "invalid zone") }
                zone = String(zoneText)
            }
            guard let bytes = Self.parseIPv6(addressPart), let address = IPAddress(networkOrder: bytes, zone: zone) else {
                throw .invalidAddress(text, reason: "not an IPv6 address")
            }
            self = address
        } else {
            guard let bytes = Self.parseIPv4(Substring(text)), let address = IPAddress(networkOrder: bytes) else {
                throw .invalidAddress(text, reason: "not an IPv4 address")
            }
            self = address
        }
    }

    /// Makes an address from raw network-order bytes: 4 for IPv4, 16 for IPv6.
    ///
    /// - Parameters:
    ///   - bytes: the address in network byte order.
    ///   - zone: for IPv6, an interface name or index; ignored for IPv4, and an empty zone is no zone.
    /// - Returns: `nil` for any other count of bytes, or a zone longer than 15 bytes (no interface name or
    ///   index is longer).
    public init?(bytes: [UInt8], zone: String? = nil) {
        self.init(networkOrder: bytes, zone: zone)
    }

    /// Makes an address from network-order bytes in any collection (a kernel attribute's slice, a buffer),
    /// without copying them into an array first; `nil` unless there are 4 or 16 and the zone fits. Only IPv6
    /// keeps a zone.
    package init?(networkOrder bytes: some Collection<UInt8>, zone: String? = nil) {
        let count = bytes.count
        guard count == 4 || count == 16 else { return nil }
        let (head, tail) = Self.pack(bytes)
        var zoneHead: UInt64 = 0
        var zoneTail: UInt64 = 0
        var zoneLength = 0
        if count == 16, let zone {
            zoneLength = zone.utf8.count
            guard zoneLength <= Self.maximumZoneLength else { return nil }
            (zoneHead, zoneTail) = Self.pack(zone.utf8)
        }
        self.init(
            head: head, tail: tail, family: count == 4 ? .ipv4 : .ipv6, zoneHead: zoneHead, zoneTail: zoneTail,
            zoneLength: UInt8(zoneLength))
    }

    /// Without the zone arguments: an address with no zone.
    private init(
        head: UInt64, tail: UInt64, family: Family, zoneHead: UInt64 = 0, zoneTail: UInt64 = 0, zoneLength: UInt8 = 0
    ) {
        self.head = head
        self.tail = tail
        self.family = family
        self.zoneHead = zoneHead
        self.zoneTail = zoneTail
        self.zoneLength = zoneLength
    }

    /// Up to 16 bytes as two big-endian integers, missing bytes zero.
    private static func pack(_ bytes: some Collection<UInt8>) -> (head: UInt64, tail: UInt64) {
        // Kernel attributes and native strings are contiguous: one copy, no per-byte iteration.
        if let packed = bytes.withContiguousStorageIfAvailable({ pack(UnsafeRawBufferPointer($0)) }) { return packed }
        return Array(bytes.prefix(16)).withUnsafeBytes { pack($0) }
    }

    private static func pack(_ bytes: UnsafeRawBufferPointer) -> (head: UInt64, tail: UInt64) {
        // An address's own sizes are loaded directly: every route a lookup answers holds two or three.
        switch bytes.count {
        case 4: return (UInt64(UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self))) << 32, 0)
        case 16:
            return (
                UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)),
                UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        default: break
        }
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.prefix(16))) }
        return (UInt64(bigEndian: words.0), UInt64(bigEndian: words.1))
    }

    /// Calls `body` with the first `count` bytes of two words made by `pack`, kept on the stack.
    private static func unpack<Result>(
        _ head: UInt64, _ tail: UInt64, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let stored = (head.bigEndian, tail.bigEndian)
        return try Swift.withUnsafeBytes(of: stored) { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
    }

    // MARK: - Properties

    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    ///
    /// Made on each use, as an array.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// How many bytes the address has: 4 or 16.
    package var byteCount: Int { family == .ipv4 ? 4 : 16 }

    /// The byte at `position` (network order), which must be below ``byteCount``.
    package subscript(byte position: Int) -> UInt8 {
        precondition(position >= 0 && position < byteCount, "address byte \(position) out of range")
        return UInt8(truncatingIfNeeded: position < 8 ? head >> (56 - 8 * position) : tail >> (120 - 8 * position))
    }

    /// The IPv6 zone as written after `%` (an interface name or index), or `nil`.
    public var zone: String? {
        guard zoneLength > 0 else { return nil }
        return Self.unpack(zoneHead, zoneTail, count: Int(zoneLength)) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the address's network-order bytes, kept on the stack.
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try Self.unpack(head, tail, count: byteCount, body)
    }

    /// Whether this address's first `length` bits are `network`'s, both of one family (zones are not compared);
    /// `length` is clamped to the address's width. The same as lying between `network`'s ``prefixBounds(length:)``,
    /// without making them: a pass over 10,000 targets asks this of each.
    func sharesPrefix(with network: IPAddress, length: Int) -> Bool {
        guard family == network.family else { return false }
        let (headMask, tailMask) = prefixMasks(length: length)
        return (head ^ network.head) & headMask == 0 && (tail ^ network.tail) & tailMask == 0
    }

    /// The masks of a `length`-bit prefix over `head` and `tail`, `length` clamped to the address's width.
    private func prefixMasks(length: Int) -> (head: UInt64, tail: UInt64) {
        let bits = min(max(length, 0), byteCount * 8)
        // Shifts by 64 or more give zero: a mask of no bits.
        return (bits >= 64 ? UInt64.max : UInt64.max << (64 - bits), bits <= 64 ? 0 : UInt64.max << (128 - bits))
    }

    /// The lowest and highest addresses of the `length`-bit prefix this address lies in (host bits all zero,
    /// and all one), without a zone; `length` is clamped to the address's width.
    func prefixBounds(length: Int) -> (lowest: IPAddress, highest: IPAddress) {
        let (headMask, tailMask) = prefixMasks(length: length)
        // IPv4 lives in head's top four bytes; the rest stays zero in the highest address too.
        let headWidth: UInt64 = family == .ipv4 ? 0xFFFF_FFFF_0000_0000 : .max
        let tailWidth: UInt64 = family == .ipv4 ? 0 : .max
        let lowest = IPAddress(head: head & headMask, tail: tail & tailMask, family: family)
        let highest = IPAddress(head: head | (~headMask & headWidth), tail: tail | (~tailMask & tailWidth), family: family)
        return (lowest, highest)
    }

    /// Whether the address is IPv4 `169.254.0.0/16` or IPv6 `fe80::/10`.
    public var isLinkLocal: Bool {
        switch family {
        case .ipv4: return self[byte: 0] == 169 && self[byte: 1] == 254
        case .ipv6: return self[byte: 0] == 0xFE && self[byte: 1] & 0xC0 == 0x80
        }
    }

    /// The address formatted as `inet_ntop` formats it, with `%zone` when there is one.
    public var description: String {
        let text = family == .ipv4 ? Self.formatIPv4(UInt32(truncatingIfNeeded: head >> 32)) : Self.formatIPv6(self)
        return zone.map { "\(text)%\($0)" } ?? text
    }

    /// Hashes the two address words, and the zone's only when there is one: fewer rounds than hashing every
    /// stored field, for the monitor's tables keyed by address.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(head)
        hasher.combine(tail)
        if zoneLength > 0 {
            hasher.combine(zoneHead)
            hasher.combine(zoneTail)
        }
    }

    /// The address without its zone.
    public var withoutZone: IPAddress {
        IPAddress(head: head, tail: tail, family: family)
    }
}

// MARK: - Parsing

extension IPAddress {
    static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(4)
        for part in parts {
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            if part.utf8.count > 1 && part.utf8.first == UInt8(ascii: "0") { return nil }
            guard let value = UInt8(part) else { return nil }
            result.append(value)
        }
        return result
    }

    static func parseIPv6(_ text: Substring) -> [UInt8]? {
        guard text.utf8.count >= 2 else { return nil }
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var sawDoubleColon = false
        let halves = text.components(separatedByDoubleColon: ())
        switch halves.count {
        case 1: break
        case 2: sawDoubleColon = true
        default: return nil
        }
        guard let first = parseGroups(halves[0], allowTrailingIPv4: !sawDoubleColon) else { return nil }
        head = first
        if sawDoubleColon {
            guard let second = parseGroups(halves[1], allowTrailingIPv4: true) else { return nil }
            tail = second
            guard head.count + tail.count <= 7 else { return nil }
        } else {
            guard head.count == 8 else { return nil }
        }
        let groups = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for group in groups {
            bytes.append(UInt8(group >> 8))
            bytes.append(UInt8(group & 0xFF))
        }
        return bytes
    }

    /// Parses colon-separated hex groups; the last may be a dotted quad (two groups).
    private static func parseGroups(_ text: Substring, allowTrailingIPv4: Bool) -> [UInt16]? {
        if text.isEmpty { return [] }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var groups: [UInt16] = []
        for (position, part) in parts.enumerated() {
            if position == parts.count - 1, allowTrailingIPv4, part.contains(".") {
                guard let quad = parseIPv4(part) else { return nil }
                groups.append(UInt16(quad[0]) << 8 | UInt16(quad[1]))
                groups.append(UInt16(quad[2]) << 8 | UInt16(quad[3]))
                continue
            }
            guard (1...4).contains(part.utf8.count), let value = UInt16(part, radix: 16) else { return nil }
            groups.append(value)
        }
        return groups
    }
}

extension Substring {
    /// Splits at the first `::`; a second `::` yields three or more pieces, which callers reject.
    fileprivate func components(separatedByDoubleColon _: Void) -> [Substring] {
        var pieces: [Substring] = []
        var start = startIndex
        var index = startIndex
        while index < endIndex {
            let next = self.index(after: index)
            if self[index] == ":", next < endIndex, self[next] == ":" {
                pieces.append(self[start..<index])
                start = self.index(after: next)
                index = start
                continue
            }
            index = next
        }
        pieces.append(self[start..<endIndex])
        return pieces
    }
}

// MARK: - Formatting

extension IPAddress {
    /// The dotted quad of `address` (network order, as a big-endian integer), as `inet_ntop` writes it.
    static func formatIPv4(_ address: UInt32) -> String {
        // Written in place: at most 15 bytes, which a String keeps inline, without an allocation.
        String(unsafeUninitializedCapacity: 15) { text in
            var writer = ASCIIWriter(text)
            writer.dottedQuad(address)
            return writer.count
        }
    }

    /// `inet_ntop` (glibc) layout: lowercase, the longest run of two or more zero groups
    /// compressed (the first on a tie), `::a.b.c.d` and `::ffff:a.b.c.d` kept as dotted quads.
    static func formatIPv6(_ address: IPAddress) -> String {
        func word(_ index: Int) -> UInt16 {
            UInt16(truncatingIfNeeded: (index < 4 ? address.head : address.tail) >> (48 - 16 * (index % 4)))
        }
        var bestStart = -1
        var bestLength = 0
        var runStart = -1
        for index in 0...8 {
            if index < 8 && word(index) == 0 {
                if runStart < 0 { runStart = index }
            } else if runStart >= 0 {
                let length = index - runStart
                if length > bestLength {
                    bestStart = runStart
                    bestLength = length
                }
                runStart = -1
            }
        }
        if bestLength < 2 { bestStart = -1 }
        // The longest text is eight full groups and seven colons: 39 bytes.
        return String(unsafeUninitializedCapacity: 39) { text in
            var writer = ASCIIWriter(text)
            for index in 0..<8 {
                if bestStart >= 0 && index >= bestStart && index < bestStart + bestLength {
                    if index == bestStart { writer.character(":") }
                    continue
                }
                if index != 0 { writer.character(":") }
                if index == 6 && bestStart == 0 && (bestLength == 6 || (bestLength == 5 && word(5) == 0xFFFF)) {
                    writer.dottedQuad(UInt32(truncatingIfNeeded: address.tail))
                    break
                }
                writer.hexadecimal(word(index))
            }
            if bestStart >= 0 && bestStart + bestLength == 8 { writer.character(":") }
            return writer.count
        }
    }

    /// Writes ASCII into a string's uninitialized storage, which is sized for the longest address text.
    private struct ASCIIWriter {
        private let text: UnsafeMutableBufferPointer<UInt8>
        private(set) var count = 0

        init(_ text: UnsafeMutableBufferPointer<UInt8>) { self.text = text }

        mutating func character(_ character: Unicode.Scalar) {
            text[count] = UInt8(ascii: character)
            count += 1
        }

        mutating func dottedQuad(_ address: UInt32) {
            for shift in stride(from: 24, through: 0, by: -8) {
                if shift < 24 { character(".") }
                decimal(UInt8(truncatingIfNeeded: address >> UInt32(shift)))
            }
        }

        mutating func decimal(_ value: UInt8) {
            if value >= 100 { digit(value / 100) }
            if value >= 10 { digit(value / 10 % 10) }
            digit(value % 10)
        }

        /// Lowercase, without leading zeros.
        mutating func hexadecimal(_ value: UInt16) {
            var shift = 12
            while shift > 0 && value >> UInt16(shift) == 0 { shift -= 4 }
            while shift >= 0 {
                digit(UInt8(truncatingIfNeeded: value >> UInt16(shift)) & 0xF)
                shift -= 4
            }
        }

        private mutating func digit(_ value: UInt8) {
            text[count] = value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
            count += 1
        }
    }
}

extension IPAddress: Codable {
    /// Decodes the text ``init(_:)`` parses, such as `192.0.2.1` or `fe80::1%eth0`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try IPAddress(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes the address as ``description`` prints it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
