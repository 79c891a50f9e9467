import NetworkReachabilityCore

/// One monitor pass over the kernel: the evaluator that asks once for all the pass's parts what a pass asks once (the
/// internet's routes, NAT64), and what the route sharing found of the policy rules and the `default` table. Made by
/// ``NetlinkSubscription/beginPass(after:)``; the monitor drops it when the pass ends, and nothing of it outlives the
/// pass. Used from the monitor's thread only.
final class NetlinkPass: RoutingPass {
    private let subscription: NetlinkSubscription
    /// The changes the pass's targets are due after.
    let changes: NetworkChanges
    let evaluator: TargetEvaluator
    var tables = RouteSharing.PassTables()
    /// The identities of the networks the pass's paths lead into, asked once per interface for all its parts.
    var identities: NetworkIdentityReader?

    init(of subscription: NetlinkSubscription, after changes: NetworkChanges, evaluator: TargetEvaluator) {
        self.subscription = subscription
        self.changes = changes
        self.evaluator = evaluator
    }

    func evaluate(_ targets: [DueTarget]) -> [TargetEvaluation] {
        subscription.evaluate(targets, in: self)
    }
}
