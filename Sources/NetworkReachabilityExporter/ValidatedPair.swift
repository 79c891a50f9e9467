import NetworkReachabilityCore
import NetworkReachabilityValidationCore

/// The internet's snapshot paired with the validator's outcome: the one rule of which pair `watch --validate` prints
/// and `serve --validate` publishes, and when a new one is due.
package struct ValidatedPair {
    private var snapshot: ReachabilitySnapshot?
    private var outcome = ValidationOutcome.notChecked
    private var shown: (snapshot: ReachabilitySnapshot, outcome: ValidationOutcome)?

    /// No snapshot yet, and the validator not heard from.
    package init() {}

    /// The internet's snapshot changed: the pair to show, or `nil` when it is the one shown last.
    package mutating func receive(_ snapshot: ReachabilitySnapshot) -> (
        snapshot: ReachabilitySnapshot, outcome: ValidationOutcome
    )? {
        self.snapshot = snapshot
        return next()
    }

    /// The validator's outcome changed: the pair to show, or `nil` when it is the one shown last (or no snapshot
    /// came yet).
    package mutating func receive(_ outcome: ValidationOutcome) -> (snapshot: ReachabilitySnapshot, outcome: ValidationOutcome)? {
        self.outcome = outcome
        return next()
    }

    private mutating func next() -> (snapshot: ReachabilitySnapshot, outcome: ValidationOutcome)? {
        guard let snapshot else { return nil }
        // Without the internet nothing is probed: say so at once rather than repeat the last outcome.
        let outcome = snapshot.status.isReachable ? self.outcome : .notChecked
        if let shown, shown.snapshot == snapshot, shown.outcome == outcome { return nil }
        shown = (snapshot, outcome)
        return shown
    }
}
