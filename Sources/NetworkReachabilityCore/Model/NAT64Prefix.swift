/// A NAT64 prefix, and the RFC 6052 §2.2 mapping between IPv4 addresses and IPv4-embedded IPv6 addresses.
///
/// The IPv4 address fills the 32 bits after the prefix, skipping bits 64–71 (the "u" octet, always zero);
/// the suffix is zero. Prefix lengths are 32, 40, 48, 56, 64 or 96.
public struct NAT64Prefix: Sendable, Hashable, CustomStringConvertible {
    /// The prefix lengths RFC 6052 allows.
    public static let allowedLengths = [32, 40, 48, 56, 64, 96]

    /// The Well-Known Prefix `64:ff9b::/96`.
    public static let wellKnown = NAT64Prefix(checkedBytes: [0, 0x64, 0xFF, 0x9B] + [UInt8](repeating: 0, count: 12), length: 96)

    /// The prefix's 16 bytes, zero past ``length``.
    public let bytes: [UInt8]
    /// The prefix length in bits.
    public let length: Int

    /// Parses `PREFIX/LENGTH`, e.g. `64:ff9b::/96`.
    ///
    /// - Throws: ``ReachabilityError/invalidNAT64Prefix(_:reason:)``.
    public init(_ text: String) throws(ReachabilityError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let length = Int(parts[1]) else {
            throw .invalidNAT64Prefix(text, reason: "expected PREFIX/LENGTH")
        }
        let address: IPAddress
        do {
            address = try IPAddress(String(parts[0]))
        } catch {
            throw .invalidNAT64Prefix(text, reason: "not an IPv6 prefix")
        }
        try self.init(address: address, length: length, text: text)
    }

    /// Makes a prefix from an IPv6 address and a length.
    ///
    /// - Throws: ``ReachabilityError/invalidNAT64Prefix(_:reason:)`` for an IPv4 address, a length RFC 6052 does
    ///   not allow, bits set past the length, or (for /96) a non-zero u octet.
    public init(address: IPAddress, length: Int) throws(ReachabilityError) {
        try self.init(address: address, length: length, text: "\(address)/\(length)")
    }

    private init(address: IPAddress, length: Int, text: String) throws(ReachabilityError) {
        guard address.family == .ipv6, address.zone == nil else { throw .invalidNAT64Prefix(text, reason: "not an IPv6 prefix") }
        guard Self.allowedLengths.contains(length) else {
            throw .invalidNAT64Prefix(text, reason: "length must be 32, 40, 48, 56, 64 or 96")
        }
        guard address.bytes[(length / 8)...].allSatisfy({ $0 == 0 }) else {
            throw .invalidNAT64Prefix(text, reason: "bits are set past the prefix length")
        }
        guard address.bytes[8] == 0 else { throw .invalidNAT64Prefix(text, reason: "bits 64-71 (the u octet) must be zero") }
        self.init(checkedBytes: address.bytes, length: length)
    }

    private init(checkedBytes: [UInt8], length: Int) {
        bytes = checkedBytes
        self.length = length
    }

    /// The byte positions that carry the IPv4 address for this length: after the prefix, skipping byte 8.
    private var embeddedPositions: [Int] {
        Array((length / 8)..<16).filter { $0 != 8 }.prefix(4).map { $0 }
    }

    /// The IPv4-embedded IPv6 address for `ipv4` (RFC 6052 §2.2).
    ///
    /// - Throws: ``ReachabilityError/invalidAddress(_:reason:)`` when `ipv4` is not IPv4.
    public func synthesize(_ ipv4: IPAddress) throws(ReachabilityError) -> IPAddress {
        guard ipv4.family == .ipv4 else { throw .invalidAddress(ipv4.description, reason: "not an IPv4 address") }
        // Byte by byte, no position list: a NAT64 read synthesizes on every read.
        var result = bytes
        var position = length / 8
        for source in 0..<4 {
            if position == 8 { position += 1 }
            result[position] = ipv4[byte: source]
            position += 1
        }
        return IPAddress(bytes: result) ?? ipv4
    }

    /// The IPv4 address embedded in `ipv6`, or `nil` when `ipv6` is not under this prefix, its u octet is not
    /// zero, or its suffix is not zero.
    public func extractIPv4(from ipv6: IPAddress) -> IPAddress? {
        guard ipv6.family == .ipv6, Array(ipv6.bytes[..<(length / 8)]) == Array(bytes[..<(length / 8)]), ipv6.bytes[8] == 0
        else { return nil }
        let positions = embeddedPositions
        let suffix = (0..<16).filter { $0 >= length / 8 && $0 != 8 && !positions.contains($0) }
        guard suffix.allSatisfy({ ipv6.bytes[$0] == 0 }) else { return nil }
        return IPAddress(bytes: positions.map { ipv6.bytes[$0] })
    }

    /// `PREFIX/LENGTH`, e.g. `64:ff9b::/96`.
    public var description: String { "\(IPAddress(bytes: bytes).map(String.init(describing:)) ?? "?")/\(length)" }
}

extension NAT64Prefix: Codable {
    /// Decodes the text ``init(_:)`` parses, such as `64:ff9b::/96`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try NAT64Prefix(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes the prefix as ``description`` prints it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
