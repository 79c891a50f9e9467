/// The generation of a cellular link's radio access technology: TSReachabilityManager's 2G, 3G and 4G, and 5G.
///
/// On Linux it comes from ModemManager's access-technology bits (``LinkDetails/accessTechnologies``); the raw
/// values are the words of the JSON `radioTechnology` key.
public enum RadioTechnology: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// GSM, GPRS, EDGE, and CDMA 1xRTT.
    case gsm2G
    /// UMTS, HSDPA, HSUPA, HSPA, HSPA+, and CDMA EV-DO.
    case umts3G
    /// LTE, LTE Cat-M and NB-IoT.
    case lte4G
    /// 5G NR, standalone or beside LTE (non-standalone, which ModemManager reports as LTE and 5GNR together).
    case nr5G

    /// The generation of ModemManager's `MMModemAccessTechnology` bits: the newest one set; `nil` when none of
    /// the bits names a cellular generation (unknown, or POTS).
    public init?(accessTechnologies bits: UInt32) {
        func any(_ bitNumbers: [UInt32]) -> Bool { bitNumbers.contains { bits & (1 << $0) != 0 } }
        if any([15]) {  // 5GNR
            self = .nr5G
        } else if any([14, 16, 17]) {  // LTE, LTE Cat-M, LTE NB-IoT
            self = .lte4G
        } else if any([5, 6, 7, 8, 9, 11, 12, 13]) {  // UMTS, HSDPA, HSUPA, HSPA, HSPA+, EV-DO rev. 0, A, B
            self = .umts3G
        } else if any([1, 2, 3, 4, 10]) {  // GSM, GSM Compact, GPRS, EDGE, 1xRTT
            self = .gsm2G
        } else {
            return nil
        }
    }

    /// The name `reach` prints: `2G`, `3G`, `LTE`, `5G`.
    public var description: String {
        switch self {
        case .gsm2G: "2G"
        case .umts3G: "3G"
        case .lte4G: "LTE"
        case .nr5G: "5G"
        }
    }
}
