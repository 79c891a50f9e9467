/// How good a link is, in the Network Information API's words (WICG netinfo's `effectiveType`, as Chromium
/// exposes it): the class of cellular link whose round trip and throughput the measured link is like.
///
/// A class says what was measured, never what the link is: a Wi-Fi link at the end of a satellite hop is
/// `2g`-like, an LTE modem at one bar may be `3g`-like. The raw values are the words of the JSON `effectiveType`
/// key and of `reach wait --quality`. Classes are ordered from worst to best; ``unknown`` is below them all.
public enum EffectiveConnectionType: String, Sendable, Hashable, Codable, CaseIterable, Comparable,
    CustomStringConvertible
{
    /// No sample of the link yet.
    case unknown
    /// Round trip of 2,000 ms or more, or a downlink of 50 kbit/s or less.
    case slow2G = "slow-2g"
    /// Round trip of 1,400 ms or more, or a downlink of 70 kbit/s or less.
    case type2G = "2g"
    /// Round trip of 270 ms or more, or a downlink of 700 kbit/s or less.
    case type3G = "3g"
    /// Better than all of the above.
    case type4G = "4g"

    /// The word `reach` and the JSON use: `unknown`, `slow-2g`, `2g`, `3g`, `4g`.
    public var description: String { rawValue }

    /// Worse before better, `unknown` first.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .unknown: 0
        case .slow2G: 1
        case .type2G: 2
        case .type3G: 3
        case .type4G: 4
        }
    }
}
