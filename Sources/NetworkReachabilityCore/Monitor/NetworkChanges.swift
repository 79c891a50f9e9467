/// What one drained batch of platform messages changed, in the terms that pick the targets whose answer can
/// have changed (``TargetDependency/isTouched(by:of:)``): route prefixes, interfaces and addresses.
///
/// It over-approximates, never under: a change the backend cannot place (a policy rule, a link that became
/// usable and may revive routes without a notification, a batch too large to list) sets ``affectsEverything``.
package struct NetworkChanges: Sendable, Equatable {
    /// Beyond this many route prefixes or addresses in one batch, listing them costs more than evaluating
    /// everything again.
    static let listLimit = 256

    /// Destinations of routes added, removed or replaced.
    package private(set) var routePrefixes: [IPPrefix] = []
    /// Interfaces whose link changed without becoming more usable (down, renamed, deleted), or whose addresses
    /// changed.
    package private(set) var interfaces: Set<Int> = []
    /// Addresses added or removed.
    package private(set) var addresses: [IPAddress] = []
    /// Whether any target's answer may have changed.
    package private(set) var affectsEverything = false

    /// No change.
    package init() {}

    /// Everything must be evaluated again.
    package static var everything: NetworkChanges {
        var changes = NetworkChanges()
        changes.affectsEverything = true
        return changes
    }

    /// Whether the batch changed routes and nothing else: no interface, no address, nothing unplaceable.
    package var changedRoutesOnly: Bool {
        !affectsEverything && interfaces.isEmpty && addresses.isEmpty && !routePrefixes.isEmpty
    }

    /// A route to `prefix` was added, removed or replaced.
    package mutating func recordRoute(_ prefix: IPPrefix) {
        guard !affectsEverything else { return }
        if routePrefixes.count == Self.listLimit {
            markEverything()
        } else if !routePrefixes.contains(prefix) {
            routePrefixes.append(prefix)
        }
    }

    /// The link with index `index` changed without becoming more usable.
    package mutating func recordLink(_ index: Int) {
        guard !affectsEverything else { return }
        interfaces.insert(index)
    }

    /// `address` was added to or removed from the interface with index `index`.
    package mutating func recordAddress(_ address: IPAddress, onInterface index: Int) {
        guard !affectsEverything else { return }
        if addresses.count == Self.listLimit {
            markEverything()
        } else {
            addresses.append(address.withoutZone)
            interfaces.insert(index)
        }
    }

    /// Something that cannot be placed changed: every target must be evaluated again.
    package mutating func markEverything() {
        self = .everything
    }
}
