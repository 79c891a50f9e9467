/// A radio link's signal: as a percentage, and in dBm where the source measures it.
///
/// Readings move all the time; a path carries one only when it has moved by a step (``isStep(from:)``), so that a
/// listener hears the signal change band, not every reading.
public struct SignalStrength: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The signal's quality, 0 to 100 (ModemManager's `SignalQuality`, NetworkManager's access point `Strength`).
    public var percent: Int
    /// The received signal strength in dBm, when the source gives it (ModemManager's extended `Signal` readings).
    public var dBm: Double?

    /// Makes a reading; `percent` is clamped to 0...100.
    public init(percent: Int, dBm: Double? = nil) {
        self.percent = min(max(percent, 0), 100)
        self.dBm = dBm
    }

    /// Width of a percentage band: 0–19, 20–39, 40–59, 60–79, 80–100.
    public static let percentBand = 20
    /// Width of a dBm band: −60 to −69.9, −70 to −79.9, and so on.
    public static let dBmBand = 10.0
    /// How far a reading must be from the one delivered, besides being in another band, so that a reading that
    /// wobbles across a band's edge (79, 80, 79) is not delivered each time.
    public static let hysteresis = (percent: 5, dBm: 3.0)

    /// Whether this reading is worth delivering after `delivered`: it lies in another band (``percentBand`` or
    /// ``dBmBand``) and at least ``hysteresis`` away; or one of the two has a dBm figure and the other not.
    public func isStep(from delivered: SignalStrength?) -> Bool {
        guard let delivered else { return true }
        let percentBand = { (percent: Int) in min(percent, 99) / Self.percentBand }
        if percentBand(percent) != percentBand(delivered.percent), abs(percent - delivered.percent) >= Self.hysteresis.percent {
            return true
        }
        switch (dBm, delivered.dBm) {
        case (nil, nil): return false
        case (let now?, let then?):
            let band = { (dBm: Double) in (dBm / Self.dBmBand).rounded(.down) }
            return band(now) != band(then) && abs(now - then) >= Self.hysteresis.dBm
        default: return true
        }
    }

    /// `72 %`, or `72 %, -85 dBm`.
    public var description: String {
        guard let dBm else { return "\(percent) %" }
        return "\(percent) %, \(Int(dBm.rounded())) dBm"
    }
}
