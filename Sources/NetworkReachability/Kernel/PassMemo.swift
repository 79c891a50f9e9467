extension TargetEvaluator {
    /// What one monitor pass asks the kernel once for all its targets, in all its parts, where each target would
    /// otherwise ask again: the internet probes' answers and what they make of NAT64 (every unrouted IPv4 target),
    /// IPv4's policy rules and the `default` table's prefixes (every group of targets sharing a route). A change
    /// meanwhile brings another pass. ``clear()`` before it.
    final class PassMemo {
        /// The internet probes' answers, IPv4 first.
        var answers: [RouteAnswer]?
        var nat64: NAT64Plan?
        /// Whether IPv4's policy rules are the defaults (`false` also when they could not be read).
        var ipv4RulesAreDefaults: Bool?
        /// The prefixes of IPv4's routes in the `default` table.
        var defaultTablePrefixes: [NetworkChanges.Prefix]?

        /// Forgets the pass's answers: whatever comes next may change them.
        func clear() {
            answers = nil
            nat64 = nil
            ipv4RulesAreDefaults = nil
            defaultTablePrefixes = nil
        }
    }
}
