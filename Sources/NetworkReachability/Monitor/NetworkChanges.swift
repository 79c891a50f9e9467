/// What one drained batch of kernel messages changed, in the terms the monitor needs to pick the targets
/// whose answer can have changed: route prefixes, links and addresses.
///
/// It over-approximates, never under: a change the source cannot place (a policy rule, a link that became
/// usable and may revive routes without a notification, a batch too large to list) sets
/// ``affectsEverything``.
package struct NetworkChanges: Sendable, Equatable {
    /// A route's destination prefix.
    package struct Prefix: Sendable, Equatable {
        /// The destination as the route gives it, without a zone.
        package let address: IPAddress
        /// In a byte, so that it fits in the address's padding: a prefix is kept per listening target.
        private let storedLength: UInt8

        /// The prefix length in bits, at most the address's width.
        package var length: Int { Int(storedLength) }

        package init(address: IPAddress, length: Int) {
            self.address = address.withoutZone
            storedLength = UInt8(min(max(length, 0), address.byteCount * 8))
        }

        /// The whole address space of `family`: `0.0.0.0/0` or `::/0`, a default route's destination.
        package static func all(_ family: IPAddress.Family) -> Prefix {
            Prefix(address: family == .ipv4 ? Self.unspecifiedIPv4 : Self.unspecifiedIPv6, length: 0)
        }

        private static let unspecifiedIPv4 = IPAddress(networkOrder: [0, 0, 0, 0], zone: nil)!
        private static let unspecifiedIPv6 = IPAddress(networkOrder: [UInt8](repeating: 0, count: 16), zone: nil)!

        /// The lowest and highest addresses inside the prefix: host bits all zero, and all one.
        package var bounds: (lowest: IPAddress, highest: IPAddress) { address.prefixBounds(length: length) }

        /// Whether every address of the prefix lies inside `other`: `other` is the same prefix or a wider one.
        package func lies(inside other: Prefix) -> Bool {
            other.length <= length && other.contains(address)
        }

        /// Whether `candidate` (of either family, any zone) lies inside the prefix.
        package func contains(_ candidate: IPAddress) -> Bool { candidate.sharesPrefix(with: address, length: length) }
    }

    /// Beyond this many route prefixes in one batch, listing them costs more than re-evaluating everything.
    static let prefixLimit = 256

    /// Destinations of routes added, removed or replaced.
    package private(set) var routePrefixes: [Prefix] = []
    /// Indexes of links that changed without becoming more usable (went down, were renamed or deleted).
    package private(set) var links: Set<Int> = []
    /// Addresses added or removed; the path of a target whose source address or interface they touch may change.
    package private(set) var addresses: [IPAddress] = []
    /// Interfaces whose addresses changed.
    package private(set) var addressInterfaces: Set<Int> = []
    /// Whether any target's answer may have changed.
    package private(set) var affectsEverything = false

    package init() {}

    /// Everything must be evaluated again.
    package static var everything: NetworkChanges {
        var changes = NetworkChanges()
        changes.affectsEverything = true
        return changes
    }

    package mutating func recordRoute(_ prefix: Prefix) {
        guard !affectsEverything else { return }
        if routePrefixes.count == Self.prefixLimit {
            markEverything()
        } else if !routePrefixes.contains(prefix) {
            routePrefixes.append(prefix)
        }
    }

    package mutating func recordLink(_ index: Int) {
        guard !affectsEverything else { return }
        links.insert(index)
    }

    package mutating func recordAddress(_ address: IPAddress, onInterface index: Int) {
        guard !affectsEverything else { return }
        if addresses.count == Self.prefixLimit {
            markEverything()
        } else {
            addresses.append(address)
            addressInterfaces.insert(index)
        }
    }

    package mutating func markEverything() {
        self = .everything
    }
}
