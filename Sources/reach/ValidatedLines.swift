import NetworkReachabilityPOSIX
import NetworkReachabilityExporter
import NetworkReachabilityKit
import NetworkReachabilityValidation

/// `reach watch --validate`: the internet's lines carry the validation outcome, and a new line is printed when
/// either the snapshot or the outcome changes, never twice for the same pair.
final class ValidatedLines: Sendable {
    private let lines: WatchedLines
    // Guarded by its lock, which is held while printing so lines leave in the order the state changed.
    private let pair = Locked(ValidatedPair())

    init(printer: SnapshotPrinter, target: String) {
        lines = WatchedLines(printer: printer, target: target)
    }

    /// The internet's snapshot changed.
    func receive(_ snapshot: ReachabilitySnapshot) {
        pair.withLock { pair in
            if let shown = pair.receive(snapshot) { lines.print(shown.snapshot, validation: shown.outcome) }
        }
    }

    /// The validator's outcome changed.
    func receive(_ outcome: ValidationOutcome) {
        pair.withLock { pair in
            if let shown = pair.receive(outcome) { lines.print(shown.snapshot, validation: shown.outcome) }
        }
    }
}
