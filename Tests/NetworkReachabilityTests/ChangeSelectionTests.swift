import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// The pure rules that decide which targets a batch of kernel changes can touch.
struct ChangeSelectionTests {
    private func address(_ text: String) -> IPAddress { try! IPAddress(text) }
    private func prefix(_ text: String, _ length: Int) -> IPPrefix {
        IPPrefix(address: address(text), length: length)
    }

    @Test(arguments: [
        ("10.0.0.0", 8, "10.255.1.2", true), ("10.0.0.0", 8, "11.0.0.1", false),
        ("10.0.0.16", 28, "10.0.0.31", true), ("10.0.0.16", 28, "10.0.0.32", false),
        ("10.0.0.16", 28, "10.0.0.15", false), ("0.0.0.0", 0, "203.0.113.7", true),
        ("198.51.100.9", 32, "198.51.100.9", true), ("198.51.100.9", 32, "198.51.100.8", false),
        ("2001:db8::", 32, "2001:db8:ffff::1", true), ("2001:db8::", 33, "2001:db8:8000::1", false),
        ("::", 0, "2001:db8::1", true), ("0.0.0.0", 0, "::1", false),
    ])
    func aRoutePrefixTouchesExactlyTheTargetsInsideIt(network: String, length: Int, candidate: String, inside: Bool) {
        var changes = NetworkChanges()
        changes.recordRoute(prefix(network, length))
        #expect(TargetDependency().isTouched(by: changes, of: .address(address(candidate))) == inside)
        #expect(TargetDependency(destinations: [address(candidate)]).isTouched(by: changes, of: .internet) == inside)
        #expect(changes.routePrefixes[0].containsBitByBit(address(candidate)) == inside)
    }

    @Test func aTargetIsTouchedOnlyByWhatItRestsOn() {
        let target = ReachabilityTarget.address(address("10.0.0.7"))
        let dependency = TargetDependency(interfaceIndex: 3, sourceAddress: address("192.0.2.2"))

        var elsewhere = NetworkChanges()
        elsewhere.recordRoute(prefix("198.51.100.9", 32))
        elsewhere.recordRoute(prefix("10.0.0.8", 29))
        elsewhere.recordAddress(address("172.16.0.2"), onInterface: 9)
        elsewhere.recordLink(9)
        #expect(!dependency.isTouched(by: elsewhere, of: target))
        #expect(!dependency.isTouched(by: NetworkChanges(), of: target))

        var route = NetworkChanges()
        route.recordRoute(prefix("0.0.0.0", 0))
        #expect(dependency.isTouched(by: route, of: target))
        var link = NetworkChanges()
        link.recordLink(3)
        #expect(dependency.isTouched(by: link, of: target))
        var addressOnItsInterface = NetworkChanges()
        addressOnItsInterface.recordAddress(address("192.0.2.9"), onInterface: 3)
        #expect(dependency.isTouched(by: addressOnItsInterface, of: target))
        var itsSource = NetworkChanges()
        itsSource.recordAddress(address("192.0.2.2"), onInterface: 5)
        #expect(dependency.isTouched(by: itsSource, of: target))
        var itsDestination = NetworkChanges()
        itsDestination.recordAddress(address("10.0.0.7"), onInterface: 5)
        #expect(dependency.isTouched(by: itsDestination, of: target))
        #expect(dependency.isTouched(by: .everything, of: target))
        #expect(TargetDependency.always.isTouched(by: NetworkChanges(), of: target))
    }

    @Test func tooManyPrefixesAffectEverything() {
        var changes = NetworkChanges()
        for index in 0...NetworkChanges.listLimit {
            changes.recordRoute(prefix("198.18.\(index >> 8).\(index & 255)", 32))
        }
        #expect(changes.affectsEverything)
        #expect(TargetDependency().isTouched(by: changes, of: .address(address("10.0.0.1"))))
    }

    @Test func dependencyOfEachKindOfTarget() {
        let routed = ReachabilitySnapshot(
            target: .address(address("10.0.0.7")), flags: [.reachable],
            path: ReachabilityPath(interface: nil, gateway: address("192.0.2.1"), sourceAddress: address("192.0.2.2")))
        let narrowed = TargetEvaluator.dependency(of: .address(address("10.0.0.7")), routed)
        #expect(!narrowed.always)
        #expect(narrowed.destinations.isEmpty)
        #expect(narrowed.sourceAddress == address("192.0.2.2"))

        // An unrouted IPv4 address may become reachable through NAT64: it also rests on the internet's routes.
        let unrouted = ReachabilitySnapshot(target: .address(address("198.51.100.7")), flags: [], path: .none)
        let nat64 = TargetEvaluator.dependency(of: .address(address("198.51.100.7")), unrouted)
        #expect(nat64.destinations == [TargetEvaluator.internetProbeIPv4, TargetEvaluator.internetProbeIPv6])
        var defaultRoute = NetworkChanges()
        defaultRoute.recordRoute(prefix("0.0.0.0", 0))
        #expect(nat64.isTouched(by: defaultRoute, of: .address(address("198.51.100.7"))))
        var ipv6DefaultRoute = NetworkChanges()
        ipv6DefaultRoute.recordRoute(prefix("::", 0))
        #expect(nat64.isTouched(by: ipv6DefaultRoute, of: .address(address("198.51.100.7"))))
        #expect(!narrowed.isTouched(by: ipv6DefaultRoute, of: .address(address("10.0.0.7"))))

        let pair = TargetEvaluator.dependency(of: .addressPair(local: address("192.0.2.2"), remote: address("10.0.0.7")), routed)
        #expect(pair.destinations.isEmpty && !pair.always)
        var localGone = NetworkChanges()
        localGone.recordAddress(address("192.0.2.2"), onInterface: 9)
        #expect(pair.isTouched(by: localGone, of: .addressPair(local: address("192.0.2.2"), remote: address("10.0.0.7"))))

        for target: ReachabilityTarget in [.internet, .linkLocal, .address(address("fe80::1%rn0"))] {
            #expect(TargetEvaluator.dependency(of: target, routed).always, "\(target)")
        }
    }

    /// The rule must touch exactly the targets the oracle, written bit by bit, touches.
    @Test func theRuleAgreesWithTheOracleOnRandomTargetsAndChanges() {
        var generator = SystemRandomNumberGenerator()
        func randomAddress() -> IPAddress {
            Bool.random(using: &generator)
                ? IPAddress(bytes: [10, 0, UInt8.random(in: 0...3), UInt8.random(in: 0...255)])!
                : IPAddress(bytes: [0x20, 0x01, 0x0d, 0xb8] + (0..<12).map { _ in UInt8.random(in: 0...1) })!
        }
        for _ in 0..<2_000 {
            let target: ReachabilityTarget =
                switch Int.random(in: 0..<3) {
                case 0: .address(randomAddress())
                case 1: .addressPair(local: randomAddress(), remote: randomAddress())
                default: .internet
                }
            let dependency = TargetDependency(
                always: Int.random(in: 0..<20) == 0, destinations: (0..<Int.random(in: 0...2)).map { _ in randomAddress() },
                interfaceIndex: Bool.random() ? Int.random(in: 1...4) : nil,
                sourceAddress: Bool.random() ? randomAddress() : nil)
            var changes = NetworkChanges()
            for _ in 0..<Int.random(in: 0...3) {
                let address = randomAddress()
                changes.recordRoute(IPPrefix(address: address, length: Int.random(in: 0...address.bytes.count * 8)))
            }
            if Bool.random() { changes.recordLink(Int.random(in: 1...6)) }
            if Bool.random() { changes.recordAddress(randomAddress(), onInterface: Int.random(in: 1...6)) }
            #expect(dependency.isTouched(by: changes, of: target) == dependency.isTouchedByTheOracle(changes, of: target))
        }
    }

    /// `contains` masks words; the oracle compares bit by bit, across both families and every length.
    @Test func aPrefixContainsExactlyTheAddressesThatShareItsBits() {
        var generator = SplitMix64(seed: 0xC0_7A1)
        for _ in 0..<20_000 {
            func random(_ count: Int, near base: [UInt8]) -> IPAddress {
                // Mostly a few bits from `base`, so that long shared prefixes come up.
                let bytes = (0..<count).map { index in
                    Int.random(in: 0..<4, using: &generator) == 0 ? UInt8.random(in: 0...255, using: &generator) : base[index]
                }
                return IPAddress(bytes: bytes)!
            }
            let count = Bool.random(using: &generator) ? 4 : 16
            let base = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let network = random(count, near: base)
            let otherFamily = Int.random(in: 0..<10, using: &generator) == 0
            let candidate = random(otherFamily ? 20 - count : count, near: base)
            let prefix = IPPrefix(address: network, length: Int.random(in: 0...count * 8 + 3, using: &generator))
            #expect(prefix.contains(candidate) == prefix.containsBitByBit(candidate), "\(prefix) \(candidate)")
        }
    }

    /// A prefix keeps its network's address and a length within the address's width, so that two prefixes of the
    /// same addresses are equal.
    @Test func aPrefixIsItsNetworkAndALengthWithinTheWidth() {
        #expect(prefix("10.0.0.29", 28).address == address("10.0.0.16"))
        #expect(prefix("10.0.0.29", 28) == prefix("10.0.0.16", 28))
        #expect(prefix("10.0.0.29", 28) != prefix("10.0.0.16", 27))
        #expect(prefix("10.0.0.0", 99).length == 32 && prefix("10.0.0.0", -3).length == 0)
        #expect(prefix("2001:db8:ffff::1", 33).address == address("2001:db8:8000::"))
        #expect(prefix("fe80::1%rn0", 64).address.zone == nil)
        #expect(IPPrefix.all(.ipv6) == prefix("::", 0) && IPPrefix.all(.ipv4) == prefix("0.0.0.0", 0))
    }

    @Test func pathCopiesAreIndependentValues() {
        let original = ReachabilityPath(gateway: address("192.0.2.1"), supportsIPv4: true)
        var copy = original
        #expect(copy == original)
        copy.gateway = address("192.0.2.254")
        #expect(original.gateway == address("192.0.2.1"))
        #expect(copy != original)
        let rebuilt = ReachabilityPath(gateway: address("192.0.2.1"), supportsIPv4: true)
        #expect(rebuilt == original)
        #expect(rebuilt.hashValue == original.hashValue)
    }
}

extension TargetDependency {
    /// TargetDependency's rule as plainly as it reads, bit by bit: the oracle ``isTouched(by:of:)`` is checked against.
    func isTouchedByTheOracle(_ changes: NetworkChanges, of target: ReachabilityTarget) -> Bool {
        if always || changes.affectsEverything { return true }
        if let interfaceIndex, changes.interfaces.contains(interfaceIndex) { return true }
        if let sourceAddress, changes.addresses.contains(where: { $0.bytes == sourceAddress.bytes }) { return true }
        let own: [IPAddress] =
            switch target {
            case .address(let address): [address]
            case .addressPair(let local, let remote): [local, remote]
            default: []
            }
        for destination in own + destinations {
            if changes.addresses.contains(where: { $0.bytes == destination.bytes }) { return true }
            if changes.routePrefixes.contains(where: { $0.containsBitByBit(destination) }) { return true }
        }
        return false
    }
}

extension IPPrefix {
    /// Whether `address` lies inside the prefix, bit by bit: the oracle's containment, independent of the masks
    /// `contains` uses.
    func containsBitByBit(_ candidate: IPAddress) -> Bool {
        let (inside, outside) = (candidate.bytes, address.bytes)
        guard inside.count == outside.count else { return false }
        for bit in 0..<length where (inside[bit / 8] ^ outside[bit / 8]) & (0x80 >> UInt8(bit % 8)) != 0 {
            return false
        }
        return true
    }
}
