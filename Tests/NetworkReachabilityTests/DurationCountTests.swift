import Testing

import NetworkReachabilityPOSIX

/// The package's one conversion of a `Duration` to milliseconds or nanoseconds: exact where it fits, held at
/// `Int64`'s bounds where it does not (a public timeout of `.seconds(.max)` trapped in three places).
struct DurationCountTests {
    @Test func countsAreExactWhereTheyFit() {
        #expect(Duration.milliseconds(1_500).saturatingMilliseconds == 1_500)
        #expect(Duration.nanoseconds(1_234_567).saturatingMilliseconds == 1)
        #expect(Duration.seconds(-2).saturatingMilliseconds == -2_000)
        #expect(Duration.seconds(3).saturatingNanoseconds == 3_000_000_000)
        #expect(Duration.milliseconds(250).after(1_000) == 1_250)
    }

    @Test func countsBeyondInt64AreHeldAtItsBounds() {
        #expect(Duration.seconds(Int64.max).saturatingMilliseconds == .max)
        #expect(Duration.seconds(Int64.min).saturatingMilliseconds == .min)
        #expect(Duration.seconds(Int64.max / 1_000).saturatingNanoseconds == .max)
        #expect(Duration.seconds(300 * 365 * 86_400).saturatingNanoseconds == .max)  // past 292 years
        #expect(Duration.seconds(Int64.max / 1_000).after(.max - 5) == .max)
        #expect(Duration.seconds(Int64.min / 1_000).after(.min + 5) == .min)
    }
}
