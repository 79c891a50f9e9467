import NetworkReachability
import NetworkReachabilityValidation

/// `reach watch --validate`: the internet's lines carry the validation outcome, and a new line is printed when
/// either the snapshot or the outcome changes, never twice for the same pair.
final class ValidatedLines: Sendable {
    private struct State {
        var snapshot: ReachabilitySnapshot?
        var outcome = ValidationOutcome.notChecked
        var printed: (ReachabilitySnapshot, ValidationOutcome)?
    }

    private let printer: SnapshotPrinter
    private let target: String
    // Guarded by its lock, which is held while printing so lines leave in the order the state changed.
    private let state = Locked(State())

    init(printer: SnapshotPrinter, target: String) {
        self.printer = printer
        self.target = target
    }

    /// The internet's snapshot changed.
    func receive(_ snapshot: ReachabilitySnapshot) {
        state.withLock { state in
            state.snapshot = snapshot
            printIfNew(&state)
        }
    }

    /// The validator's outcome changed.
    func receive(_ outcome: ValidationOutcome) {
        state.withLock { state in
            state.outcome = outcome
            printIfNew(&state)
        }
    }

    private func printIfNew(_ state: inout State) {
        guard let snapshot = state.snapshot else { return }
        // Without the internet nothing is probed: say so at once rather than repeat the last outcome.
        let shown = snapshot.status.isReachable ? state.outcome : .notChecked
        if let (lastSnapshot, lastOutcome) = state.printed, lastSnapshot == snapshot, lastOutcome == shown { return }
        state.printed = (snapshot, shown)
        printer.print(snapshot, as: target, validation: shown)
    }
}
