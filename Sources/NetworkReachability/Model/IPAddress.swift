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

    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// The IPv6 zone as written after `%` (an interface name or index), or `nil`.
    public let zone: String?

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
                guard !zoneText.isEmpty, zoneText.utf8.count < 16, !zoneText.contains("%"), !zoneText.contains("/")
                else { throw .invalidAddress(text, reason: "invalid zone") }
                zone = String(zoneText)
            }
            guard let bytes = Self.parseIPv6(addressPart) else {
                throw .invalidAddress(text, reason: "not an IPv6 address")
            }
            self.bytes = bytes
            self.zone = zone
        } else {
            guard let bytes = Self.parseIPv4(Substring(text)) else {
                throw .invalidAddress(text, reason: "not an IPv4 address")
            }
            self.bytes = bytes
            self.zone = nil
        }
    }

    /// Makes an address from raw network-order bytes: 4 for IPv4, 16 for IPv6; `nil` for any other count.
    public init?(bytes: [UInt8], zone: String? = nil) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
        self.zone = bytes.count == 16 ? zone : nil
    }

    // MARK: - Properties

    /// The family of the address.
    public var family: Family { bytes.count == 4 ? .ipv4 : .ipv6 }

    /// Whether the address is IPv4 `169.254.0.0/16` or IPv6 `fe80::/10`.
    public var isLinkLocal: Bool {
        switch family {
        case .ipv4: return bytes[0] == 169 && bytes[1] == 254
        case .ipv6: return bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
        }
    }

    /// The address formatted as `inet_ntop` formats it, with `%zone` when there is one.
    public var description: String {
        let text = family == .ipv4 ? Self.formatIPv4(bytes[...]) : Self.formatIPv6(bytes)
        return zone.map { "\(text)%\($0)" } ?? text
    }

    /// The address without its zone.
    public var withoutZone: IPAddress { IPAddress(checkedBytes: bytes) }

    /// Hashes the address bytes in one piece (the synthesized hash feeds them one at a time), and the zone.
    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(zone)
    }

    private init(checkedBytes: [UInt8]) {
        self.bytes = checkedBytes
        self.zone = nil
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
    /// The dotted quad, as `inet_ntop` writes it.
    static func formatIPv4(_ bytes: ArraySlice<UInt8>) -> String {
        // Written in place: at most 15 bytes, which a String keeps inline, without an allocation.
        String(unsafeUninitializedCapacity: 15) { text in
            var writer = ASCIIWriter(text)
            writer.dottedQuad(bytes)
            return writer.count
        }
    }

    /// `inet_ntop` (glibc) layout: lowercase, the longest run of two or more zero groups
    /// compressed (the first on a tie), `::a.b.c.d` and `::ffff:a.b.c.d` kept as dotted quads.
    static func formatIPv6(_ bytes: [UInt8]) -> String {
        func word(_ index: Int) -> UInt16 { UInt16(bytes[2 * index]) << 8 | UInt16(bytes[2 * index + 1]) }
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
                    writer.dottedQuad(bytes[12..<16])
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

        mutating func dottedQuad(_ bytes: ArraySlice<UInt8>) {
            for (position, byte) in bytes.enumerated() {
                if position > 0 { character(".") }
                decimal(byte)
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
