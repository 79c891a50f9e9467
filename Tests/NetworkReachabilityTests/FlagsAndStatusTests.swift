import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

struct FlagsAndStatusTests {
    @Test func rawValuesEqualApples() {
        let expected: [(ReachabilityFlags, UInt32)] = [
            (.transientConnection, 1 << 0), (.reachable, 1 << 1), (.connectionRequired, 1 << 2),
            (.connectionOnTraffic, 1 << 3), (.interventionRequired, 1 << 4), (.connectionOnDemand, 1 << 5),
            (.isLocalAddress, 1 << 16), (.isDirect, 1 << 17), (.isWWAN, 1 << 18),
        ]
        for (flag, bit) in expected { #expect(flag.rawValue == bit) }
    }

    /// Every one of the 2^9 combinations of the nine flags against the rule as SEMANTICS.md writes it.
    @Test func statusFollowsTheWrittenRuleForAllFlagCombinations() {
        let all = ReachabilityFlags.named.map(\.flag)
        #expect(all.count == 9)
        for mask in 0..<(1 << all.count) {
            var flags: ReachabilityFlags = []
            for (bit, flag) in all.enumerated() where mask & (1 << bit) != 0 { flags.insert(flag) }
            let reachable = flags.contains(.reachable)
            let required = flags.contains(.connectionRequired)
            let automatic = flags.contains(.connectionOnDemand) || flags.contains(.connectionOnTraffic)
            let intervention = flags.contains(.interventionRequired)
            let expected: NetworkReachabilityStatus =
                !reachable || (required && !(automatic && !intervention))
                ? .notReachable : flags.contains(.isWWAN) ? .reachable(.cellular) : .reachable(.ethernetOrWiFi)
            #expect(NetworkReachabilityStatus(flags) == expected, "flags \(flags.flagsString)")
        }
    }

    @Test(
        arguments: [
            (ReachabilityFlags.reachable, "-R -------"),
            ([.reachable, .isDirect], "-R ------d"),
            ([.reachable, .isLocalAddress, .isDirect], "-R -----ld"),
            ([], "-- -------"),
            ([.reachable, .connectionRequired], "-R -c-----"),
            ([.isWWAN, .reachable, .transientConnection], "WR t------"),
            ([.connectionOnTraffic, .interventionRequired, .connectionOnDemand], "-- --CiD--"),
            (ReachabilityFlags(rawValue: 0x7_003F), "WR tcCiDld"),
        ] as [(ReachabilityFlags, String)])
    func flagsStringUsesApplesLayout(flags: ReachabilityFlags, text: String) {
        #expect(flags.flagsString == text)
        #expect(flags.flagsString.count == 10)
    }

    @Test func namesComeInBitOrderWithSwiftSpelling() {
        #expect(ReachabilityFlags([.isDirect, .reachable]).names == ["reachable", "isDirect"])
        #expect(ReachabilityFlags([]).names == [])
    }

    @Test func statusConveniencesAndNames() {
        #expect(NetworkReachabilityStatus.reachable(.cellular).isReachableOnCellular)
        #expect(!NetworkReachabilityStatus.reachable(.cellular).isReachableOnEthernetOrWiFi)
        #expect(NetworkReachabilityStatus.reachable(.ethernetOrWiFi).isReachableOnEthernetOrWiFi)
        #expect(!NetworkReachabilityStatus.notReachable.isReachable)
        #expect(!NetworkReachabilityStatus.unknown.isReachable)
        #expect(NetworkReachabilityStatus.unknown.name == "unknown")
        #expect(NetworkReachabilityStatus.notReachable.connection == nil)
        #expect(NetworkReachabilityStatus.reachable(.cellular).name == "reachable")
    }
}
