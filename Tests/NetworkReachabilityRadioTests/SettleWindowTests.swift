import NetworkReachabilityKit
import Testing

@testable import NetworkReachabilityRadio

/// Facts that held are kept while a service says, for less than the window, that they are not known.
struct SettleWindowTests {
    private static let full = LinkDetails(
        accessTechnologies: 1 << 14, signal: SignalStrength(percent: 60), isRoaming: false, isMetered: true,
        systemConnectivity: .full)

    @Test func aLostFactIsKeptUntilTheWindowEndsThenGivenUp() {
        var window = SettleWindow(milliseconds: 3000)
        let lost = LinkDetails(accessTechnologies: 0, isMetered: nil, systemConnectivity: SystemConnectivity.none)
        // At 1 000 ms every fact is lost: all are kept, to lapse at 4 000 ms
        let kept = window.apply(["wwan0": lost], after: ["wwan0": Self.full], now: 1000)
        #expect(kept.details["wwan0"] == Self.full && kept.lapse == 4000)
        // Still lost at 3 999 ms: still kept
        #expect(window.apply(["wwan0": lost], after: kept.details, now: 3999).details["wwan0"] == Self.full)
        // At 4 000 ms the loss is given up, and nothing is kept any more
        let given = window.apply(["wwan0": lost], after: kept.details, now: 4000)
        #expect(given.details["wwan0"] == lost && given.lapse == nil)
    }

    @Test func aKnownValueReplacesAKeptOneAtOnceAndAnInterfaceThatGoesIsKeptToo() {
        var window = SettleWindow(milliseconds: 3000)
        var limited = Self.full
        limited.systemConnectivity = .limited
        limited.isMetered = nil
        let kept = window.apply(["eth0": limited], after: ["eth0": Self.full], now: 0)
        #expect(kept.details["eth0"]?.systemConnectivity == .limited && kept.details["eth0"]?.isMetered == true)
        // An interface no service names any more keeps its facts for the window, then has none
        let gone = window.apply([:], after: kept.details, now: 10)
        #expect(gone.details["eth0"] == kept.details["eth0"] && gone.lapse == 3000)
        #expect(window.apply([:], after: gone.details, now: 3010).details["eth0"] == nil)
    }
}
