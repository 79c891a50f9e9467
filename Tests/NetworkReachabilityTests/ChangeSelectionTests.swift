import Testing

@testable import NetworkReachability

/// The pure rules that decide which targets a batch of kernel changes can touch.
struct ChangeSelectionTests {
    private func address(_ text: String) -> IPAddress { try! IPAddress(text) }
    private func prefix(_ text: String, _ length: Int) -> NetworkChanges.Prefix {
        NetworkChanges.Prefix(address: address(text), length: length)
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
        var index = DependencyIndex()
        index.set(TargetDependency(destinations: [address(candidate).key]), for: 0)
        var changes = NetworkChanges()
        changes.recordRoute(prefix(network, length))
        #expect(index.affected(by: changes).contains(0) == inside)
        #expect(changes.routePrefixes[0].containsBitByBit(address(candidate)) == inside)
    }

    @Test func aTargetIsTouchedOnlyByWhatItRestsOn() {
        let target = 3
        var index = DependencyIndex()
        index.set(
            TargetDependency(destinations: [address("10.0.0.7").key], interfaceIndex: 3, sourceAddress: address("192.0.2.2").key),
            for: target)
        func touches(_ changes: NetworkChanges) -> Bool { index.affected(by: changes).contains(target) }

        var elsewhere = NetworkChanges()
        elsewhere.recordRoute(prefix("198.51.100.9", 32))
        elsewhere.recordRoute(prefix("10.0.0.8", 29))
        elsewhere.recordAddress(address("172.16.0.2"), onInterface: 9)
        elsewhere.recordLink(9)
        #expect(!touches(elsewhere))

        var route = NetworkChanges()
        route.recordRoute(prefix("0.0.0.0", 0))
        #expect(touches(route))
        var link = NetworkChanges()
        link.recordLink(3)
        #expect(touches(link))
        var addressOnItsInterface = NetworkChanges()
        addressOnItsInterface.recordAddress(address("192.0.2.9"), onInterface: 3)
        #expect(touches(addressOnItsInterface))
        var itsSource = NetworkChanges()
        itsSource.recordAddress(address("192.0.2.2"), onInterface: 5)
        #expect(touches(itsSource))
        #expect(touches(.everything))

        index.set(.always, for: target)
        #expect(touches(NetworkChanges()))
        index.remove(target)
        #expect(!touches(.everything))
    }

    @Test func tooManyPrefixesAffectEverything() {
        var changes = NetworkChanges()
        for index in 0...NetworkChanges.prefixLimit {
            changes.recordRoute(prefix("198.18.\(index >> 8).\(index & 255)", 32))
        }
        #expect(changes.affectsEverything)
        var index = DependencyIndex()
        index.set(TargetDependency(destinations: [address("10.0.0.1").key]), for: 5)
        #expect(Array(index.affected(by: changes)) == [5])
    }

    @Test func dependencyOfEachKindOfTarget() {
        let routed = ReachabilitySnapshot(
            target: .address(address("10.0.0.7")), flags: [.reachable],
            path: ReachabilityPath(interface: nil, gateway: address("192.0.2.1"), sourceAddress: address("192.0.2.2")))
        let narrowed = TargetEvaluator.dependency(of: .address(address("10.0.0.7")), routed)
        #expect(!narrowed.always)
        #expect(narrowed.destinations == [address("10.0.0.7").key])
        #expect(narrowed.sourceAddress == address("192.0.2.2").key)

        // An unrouted IPv4 address may become reachable through NAT64: it also rests on the internet's routes.
        let unrouted = ReachabilitySnapshot(target: .address(address("198.51.100.7")), flags: [], path: .none)
        let nat64 = TargetEvaluator.dependency(of: .address(address("198.51.100.7")), unrouted)
        #expect(nat64.followsInternet && nat64.destinations == [address("198.51.100.7").key])
        #expect(!narrowed.followsInternet)

        let pair = TargetEvaluator.dependency(of: .addressPair(local: address("192.0.2.2"), remote: address("10.0.0.7")), routed)
        #expect(pair.destinations == [address("10.0.0.7").key, address("192.0.2.2").key])

        for target: ReachabilityTarget in [.internet, .linkLocal, .address(address("fe80::1%rn0"))] {
            #expect(TargetEvaluator.dependency(of: target, routed).always, "\(target)")
        }
    }

    /// The index must pick exactly the targets the plain rule picks, for any mix of targets and changes.
    @Test func indexAgreesWithTheRuleOnRandomTargetsAndChanges() {
        var generator = SystemRandomNumberGenerator()
        func randomAddress() -> IPAddress {
            Bool.random(using: &generator)
                ? IPAddress(bytes: [10, 0, UInt8.random(in: 0...3), UInt8.random(in: 0...255)])!
                : IPAddress(bytes: [0x20, 0x01, 0x0d, 0xb8] + (0..<12).map { _ in UInt8.random(in: 0...1) })!
        }
        for round in 0..<200 {
            // Half the rounds with enough targets on one interface for its set to become a bitmap.
            let count = round.isMultiple(of: 2) ? 40 : 300
            var index = DependencyIndex()
            var dependencies: [Int: TargetDependency] = [:]
            for target in 0..<count {
                let dependency = TargetDependency(
                    always: Int.random(in: 0..<20) == 0, destinations: [randomAddress().key],
                    followsInternet: Int.random(in: 0..<4) == 0, interfaceIndex: Bool.random() ? Int.random(in: 1...4) : nil,
                    sourceAddress: Bool.random() ? randomAddress().key : nil)
                dependencies[target] = dependency
                index.set(dependency, for: target)
            }
            for (target, dependency) in dependencies.shuffled().prefix(count / 4) {  // some answers change
                let changed = TargetDependency(
                    always: Int.random(in: 0..<5) == 0,
                    destinations: InlineFirstArray(
                        dependency.destinations.prefix(1) + (Bool.random() ? [randomAddress().key] : [])),
                    followsInternet: Bool.random(),
                    interfaceIndex: Bool.random() ? Int.random(in: 1...4) : nil,
                    sourceAddress: Bool.random() ? randomAddress().key : nil)
                dependencies[target] = changed
                index.set(changed, for: target)
            }
            for target in dependencies.keys.shuffled().prefix(count / 3) {  // some leave
                dependencies[target] = nil
                index.remove(target)
            }
            var changes = NetworkChanges()
            for _ in 0..<Int.random(in: 0...3) {
                let address = randomAddress()
                let length = Int.random(in: 0...address.bytes.count * 8)
                changes.recordRoute(NetworkChanges.Prefix(address: address, length: length))
            }
            if Int.random(in: 0..<4) == 0 {  // a route around a probe: a default route, or one of 8.0.0.0/8
                let length = Bool.random() ? 0 : 8
                changes.recordRoute(NetworkChanges.Prefix(address: IPAddress(bytes: [8, 0, 0, 0])!, length: length))
            }
            if Int.random(in: 0..<8) == 0 { changes.recordAddress(TargetEvaluator.internetProbeIPv6, onInterface: 1) }
            if Bool.random() { changes.recordLink(Int.random(in: 1...6)) }
            if Bool.random() { changes.recordAddress(randomAddress(), onInterface: Int.random(in: 1...6)) }
            let expected = Set(dependencies.filter { $0.value.isAffected(by: changes) }.keys)
            #expect(Set(index.affected(by: changes)) == expected)
        }
    }

    /// Destinations whose last target left stay in the sorted keys until they outnumber the live ones; the
    /// index must stay exact while most targets leave, some come back to a stale key, and the keys are compacted.
    @Test func indexStaysExactWhenMostTargetsLeaveAndSomeReturn() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var index = DependencyIndex()
            var dependencies: [Int: TargetDependency] = [:]
            let pool = (0..<64).map { IPAddress(bytes: [10, 0, 0, UInt8($0 * 4)])! }
            for _ in 0..<400 {
                let target = Int.random(in: pool.indices, using: &generator)
                let destination = pool[target]
                if dependencies[target] != nil, Int.random(in: 0..<3, using: &generator) > 0 {
                    dependencies[target] = nil
                    index.remove(target)
                } else {
                    let extra = Bool.random(using: &generator) ? [pool.randomElement(using: &generator)!] : []
                    let dependency = TargetDependency(destinations: InlineFirstArray(([destination] + extra).map(\.key)))
                    dependencies[target] = dependency
                    index.set(dependency, for: target)
                }
                var changes = NetworkChanges()
                let probe = pool.randomElement(using: &generator)!
                changes.recordRoute(NetworkChanges.Prefix(address: probe, length: Int.random(in: 26...32, using: &generator)))
                let expected = Set(dependencies.filter { $0.value.isAffected(by: changes) }.keys)
                #expect(Set(index.affected(by: changes)) == expected)
            }
        }
    }

    /// Each listening target keeps one dependency, and its matched entry inside it; its first destination is
    /// inline (an array of one was 64 bytes more, and an allocation each pass).
    @Test func whatATargetKeepsStaysSmall() {
        #expect(MemoryLayout<TargetDependency>.stride <= 104)
        #expect(MemoryLayout<InlineFirstArray<AddressKey>>.stride <= 32)
        #expect(MemoryLayout<EvaluatedState?>.stride <= 16)  // a slot's and a hub's latest answer
        #expect(MemoryLayout<RouteMatch?>.stride <= 40)
        #expect(MemoryLayout<NetworkChanges.Prefix>.stride <= 40)
    }

    @Test func anInterfaceIndexBeyond32BitsMakesTheDependencyAlways() {
        let widest = TargetDependency(destinations: [address("10.0.0.7").key], interfaceIndex: Int(UInt32.max))
        #expect(widest.interfaceIndex == Int(UInt32.max) && !widest.always)
        let beyond = TargetDependency(destinations: [address("10.0.0.7").key], interfaceIndex: Int(UInt32.max) + 1)
        #expect(beyond.interfaceIndex == nil && beyond.always)
        var negative = TargetDependency(destinations: [address("10.0.0.7").key])
        negative.interfaceIndex = -1
        #expect(negative.always)
        #expect(prefix("10.0.0.0", 99).length == 32 && prefix("2001:db8::", 64).length == 64)
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
            let prefix = NetworkChanges.Prefix(address: network, length: Int.random(in: 0...count * 8 + 3, using: &generator))
            #expect(prefix.contains(candidate) == prefix.containsBitByBit(candidate), "\(prefix) \(candidate)")
        }
    }

    @Test func prefixBoundsSpanExactlyThePrefix() {
        let bounds = prefix("10.0.0.16", 28).bounds
        #expect(bounds.lowest == address("10.0.0.16"))
        #expect(bounds.highest == address("10.0.0.31"))
        #expect(prefix("0.0.0.0", 0).bounds.highest == address("255.255.255.255"))
        #expect(NetworkChanges.Prefix.all(.ipv6).bounds.highest == address("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"))
        #expect(prefix("2001:db8::", 33).bounds.highest == address("2001:db8:7fff:ffff:ffff:ffff:ffff:ffff"))
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
    /// TargetDependency's rule applied to one target, as plainly as it reads: the oracle the index is
    /// checked against.
    func isAffected(by changes: NetworkChanges) -> Bool {
        if always || changes.affectsEverything { return true }
        if let interfaceIndex, changes.links.contains(interfaceIndex) || changes.addressInterfaces.contains(interfaceIndex) {
            return true
        }
        if let sourceAddress, changes.addresses.contains(where: { $0.bytes == sourceAddress.address.bytes }) { return true }
        for destination in (destinations + (followsInternet ? TargetEvaluator.internetProbes.map(\.key) : [])).map(\.address) {
            if changes.addresses.contains(where: { $0.bytes == destination.bytes }) { return true }
            if changes.routePrefixes.contains(where: { $0.containsBitByBit(destination) }) { return true }
        }
        return false
    }
}

extension AddressKey {
    /// The address again, from the key's big-endian words: the oracle compares bytes, not keys.
    var address: IPAddress {
        let bytes =
            (0..<8).map { UInt8(truncatingIfNeeded: head >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: tail >> (56 - 8 * $0)) }
        return IPAddress(bytes: Array(bytes.prefix(isIPv6 ? 16 : 4)))!
    }
}

extension NetworkChanges.Prefix {
    /// Whether `address` lies inside the prefix, bit by bit: the oracle's containment, independent of the
    /// index's sorted bounds.
    func containsBitByBit(_ candidate: IPAddress) -> Bool {
        let (inside, outside) = (candidate.bytes, address.bytes)
        guard inside.count == outside.count else { return false }
        for bit in 0..<length where (inside[bit / 8] ^ outside[bit / 8]) & (0x80 >> UInt8(bit % 8)) != 0 {
            return false
        }
        return true
    }
}
