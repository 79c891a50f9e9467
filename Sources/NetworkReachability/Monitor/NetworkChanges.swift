/// What one drained batch of kernel messages changed, in the terms the monitor needs to pick the targets
/// whose answer can have changed: route prefixes, links and addresses.
///
/// It over-approximates, never under: a change the source cannot place (a policy rule, a link that became
/// usable and may revive routes without a notification, a batch too large to list) sets
/// ``affectsEverything``.
package struct NetworkChanges: Sendable, Equatable {
    /// A route's destination prefix.
    package struct Prefix: Sendable, Equatable {
        /// The destination in network byte order, 4 or 16 bytes.
        package var bytes: [UInt8]
        /// The prefix length in bits.
        package var length: Int

        package init(bytes: [UInt8], length: Int) {
            self.bytes = bytes
            self.length = min(max(length, 0), bytes.count * 8)
        }

        /// The lowest and highest addresses inside the prefix: host bits all zero, and all one.
        package var bounds: (lowest: [UInt8], highest: [UInt8]) {
            var lowest = bytes
            var highest = bytes
            for index in bytes.indices {
                let kept = min(max(length - index * 8, 0), 8)
                let mask = kept == 8 ? UInt8(0xFF) : UInt8(truncatingIfNeeded: 0xFF << (8 - kept))
                lowest[index] &= mask
                highest[index] |= ~mask
            }
            return (lowest, highest)
        }
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
