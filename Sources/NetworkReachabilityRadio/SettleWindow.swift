import NetworkReachabilityCore

/// Keeps a fact that held while a service says, for a moment, that it is not known: NetworkManager re-activating a
/// connection reports `Metered` unknown, connectivity `none` and no `IpInterface` for a few milliseconds, a modem
/// reports no access technology while it re-registers, and a daemon that restarts leaves the bus for a second.
///
/// A fact that was delivered and is now absent (or, for NetworkManager's connectivity, `none`) keeps its delivered
/// value for at most the window; a known value arriving within it replaces it at once, so the moment is never heard.
/// Once the window has passed, the absence is delivered. New values are never delayed: only a loss waits.
struct SettleWindow {
    /// How long a lost fact is kept.
    let milliseconds: Int
    /// When each kept fact was first seen lost, by interface.
    private var lostSince: [String: [Fact: Int]] = [:]

    private enum Fact: CaseIterable {
        case technology, signal, roaming, metered, connectivity
    }

    init(milliseconds: Int) { self.milliseconds = milliseconds }

    /// `readings` with each lost fact of `delivered` kept while it is within the window, and the earliest moment
    /// (monotonic milliseconds) a kept fact lapses, when one is kept.
    mutating func apply(
        _ readings: [String: LinkDetails], after delivered: [String: LinkDetails], now: Int
    ) -> (details: [String: LinkDetails], lapse: Int?) {
        var details = readings
        var lapse: Int?
        var kept: [String: [Fact: Int]] = [:]
        for (name, before) in delivered {
            var reading = readings[name] ?? LinkDetails()
            for fact in Fact.allCases where Self.isKnown(fact, in: before) && !Self.isKnown(fact, in: reading) {
                let since = lostSince[name]?[fact] ?? now
                guard now - since < milliseconds else { continue }
                kept[name, default: [:]][fact] = since
                lapse = min(lapse ?? .max, since + milliseconds)
                Self.copy(fact, from: before, to: &reading)
            }
            if !reading.isEmpty { details[name] = reading }
        }
        lostSince = kept
        return (details, lapse)
    }

    private static func isKnown(_ fact: Fact, in details: LinkDetails) -> Bool {
        switch fact {
        case .technology: details.accessTechnologies.map { $0 != 0 } ?? false
        case .signal: details.signal != nil
        case .roaming: details.isRoaming != nil
        case .metered: details.isMetered != nil
        case .connectivity: details.systemConnectivity.map { $0 != SystemConnectivity.none } ?? false
        }
    }

    private static func copy(_ fact: Fact, from source: LinkDetails, to target: inout LinkDetails) {
        switch fact {
        case .technology: target.accessTechnologies = source.accessTechnologies
        case .signal: target.signal = source.signal
        case .roaming: target.isRoaming = source.isRoaming
        case .metered: target.isMetered = source.isMetered
        case .connectivity: target.systemConnectivity = source.systemConnectivity
        }
    }
}
