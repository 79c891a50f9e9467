/// A host name to resolve: validated up front, so a bad name is a typed error, never a DNS query.
///
/// Internationalized names are accepted as written; the resolver converts them (glibc `AI_IDN`).
public struct HostName: Sendable, Hashable, CustomStringConvertible {
    /// The longest name DNS carries: 253 octets of text (255 on the wire).
    public static let maximumLength = 253
    /// The longest label: 63 octets.
    public static let maximumLabelLength = 63

    /// The name as given, without a trailing dot.
    public let name: String

    /// Validates a host name.
    ///
    /// - Throws: ``ReachabilityError/invalidHostName(_:reason:)`` for an empty name, a name over 253 octets, a label
    ///   over 63 octets or empty, characters no host name can hold, or an all-numeric last label (which would be an
    ///   IPv4 address, and is not a valid one).
    public init(_ text: String) throws(ReachabilityError) {
        let shown = text.utf8.count > 80 ? String(text.prefix(40)) + "…" : text
        let trimmed = text.hasSuffix(".") && text.count > 1 ? String(text.dropLast()) : text
        guard !trimmed.isEmpty else { throw .invalidHostName(shown, reason: "empty") }
        guard trimmed.utf8.count <= Self.maximumLength else {
            throw .invalidHostName(shown, reason: "longer than \(Self.maximumLength) octets")
        }
        let labels = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard !label.isEmpty else { throw .invalidHostName(shown, reason: "empty label") }
            guard label.utf8.count <= Self.maximumLabelLength else {
                throw .invalidHostName(shown, reason: "a label is longer than \(Self.maximumLabelLength) octets")
            }
            guard label.unicodeScalars.allSatisfy(Self.isAllowed) else {
                throw .invalidHostName(shown, reason: "contains characters no host name can hold")
            }
            guard label.first != "-", label.last != "-" else {
                throw .invalidHostName(shown, reason: "a label starts or ends with '-'")
            }
        }
        if let last = labels.last, last.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            throw .invalidHostName(shown, reason: "all-numeric, but not an IP address")
        }
        name = trimmed
    }

    /// Letters, digits, `-` and `_` in ASCII; any letter or digit beyond ASCII (for internationalized names).
    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let value = scalar.value
            return (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A)
                || scalar == "-" || scalar == "_"
        }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return properties.isAlphabetic || properties.numericType != nil
        }
    }

    /// The name.
    public var description: String { name }
}
