import NetworkReachabilityKit
import Testing

/// The pure rules of link details: ModemManager's access-technology bits to generations, and signal steps.
struct LinkDetailsTests {
    @Test(
        arguments: [
            (UInt32(0), nil), (1 << 0, nil),  // unknown, POTS
            (1 << 1, .gsm2G), (1 << 2, .gsm2G), (1 << 3, .gsm2G), (1 << 4, .gsm2G), (1 << 10, .gsm2G),
            (1 << 5, .umts3G), (1 << 6, .umts3G), (1 << 7, .umts3G), (1 << 8, .umts3G), (1 << 9, .umts3G),
            (1 << 11, .umts3G), (1 << 12, .umts3G), (1 << 13, .umts3G),
            (1 << 14, .lte4G), (1 << 16, .lte4G), (1 << 17, .lte4G),
            (1 << 15, .nr5G), (1 << 14 | 1 << 15, .nr5G),  // 5G standalone, and non-standalone beside LTE
            (1 << 4 | 1 << 8, .umts3G),  // the newest bit set wins
        ] as [(UInt32, RadioTechnology?)])
    func eachAccessTechnologyMapsToItsGeneration(bits: UInt32, technology: RadioTechnology?) {
        #expect(RadioTechnology(accessTechnologies: bits) == technology)
        #expect(LinkDetails(accessTechnologies: bits).radioTechnology == technology)
    }

    @Test func aSignalStepsByBandsWithAMargin() {
        let delivered = SignalStrength(percent: 72)
        #expect(!SignalStrength(percent: 73).isStep(from: delivered))  // a wiggle
        #expect(!SignalStrength(percent: 61).isStep(from: delivered))  // the same band
        #expect(SignalStrength(percent: 59).isStep(from: delivered))  // the band below
        #expect(!SignalStrength(percent: 80).isStep(from: SignalStrength(percent: 79)))  // across the edge by a hair
        #expect(SignalStrength(percent: 84).isStep(from: SignalStrength(percent: 79)))
        #expect(SignalStrength(percent: 100).isStep(from: nil))
        #expect(!SignalStrength(percent: 100).isStep(from: SignalStrength(percent: 99)))
        #expect(!SignalStrength(percent: 72, dBm: -81).isStep(from: SignalStrength(percent: 72, dBm: -79)))
        #expect(SignalStrength(percent: 72, dBm: -91).isStep(from: SignalStrength(percent: 72, dBm: -79)))
        #expect(SignalStrength(percent: 72, dBm: -79).isStep(from: delivered))  // a dBm figure appears
        #expect(SignalStrength(percent: 140).percent == 100 && SignalStrength(percent: -3).percent == 0)
    }

    @Test func settledDetailsKeepTheDeliveredSignalAndTakeEverythingElse() {
        let delivered = LinkDetails(accessTechnologies: 1 << 14, signal: SignalStrength(percent: 72))
        let reading = LinkDetails(accessTechnologies: 1 << 15, signal: SignalStrength(percent: 74), isRoaming: true)
        let settled = reading.settled(after: delivered)
        #expect(settled.signal == SignalStrength(percent: 72) && settled.radioTechnology == .nr5G && settled.isRoaming == true)
        #expect(LinkDetails(accessTechnologies: 1 << 14).settled(after: delivered).signal == nil)
    }

    @Test func theSummaryIsWhatReachPrints() {
        let details = LinkDetails(
            accessTechnologies: 1 << 14, signal: SignalStrength(percent: 72), isRoaming: true, systemConnectivity: .full)
        #expect(details.summary == "LTE, 72 %, roaming")
        #expect(LinkDetails(isMetered: true, systemConnectivity: .portal).summary == "metered, NetworkManager: portal")
    }
}
