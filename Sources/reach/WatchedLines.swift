import NetworkReachabilityPOSIX
import NetworkReachabilityKit
import NetworkReachabilityValidation
import ReachCommandLine

/// One watched target's lines: what `reach watch` prints for each state it hears, never a line equal to the one
/// before it; and, in human lines, a change of network under a status that stayed the same as a line of its own,
/// `internet: network changed: home (a3f9…) → 7c21…`.
final class WatchedLines: Sendable {
    private let printer: SnapshotPrinter
    private let target: String
    // Guarded by its lock, which is held while printing so lines leave in the order states arrive.
    private let shown = Locked<(snapshot: ReachabilitySnapshot, line: String)?>(nil)

    init(printer: SnapshotPrinter, target: String) {
        self.printer = printer
        self.target = target
    }

    /// Prints what `snapshot` (with `validation`, for a validated internet) says that the last line did not.
    func print(_ snapshot: ReachabilitySnapshot, validation: ValidationOutcome? = nil) {
        shown.withLock { shown in
            let line = printer.line(snapshot, as: target, validation: validation)
            defer { shown = (snapshot, line) }
            guard let previous = shown else { return Output.line(line) }
            if !printer.json, let change = Self.networkChange(from: previous.snapshot, to: snapshot) {
                Output.line("\(target): network changed: \(change)")
            }
            if line != previous.line { Output.line(line) }
        }
    }

    /// `home (a3f9…) → 7c21…` when the target stays as reachable as it was on another known network.
    static func networkChange(from previous: ReachabilitySnapshot, to snapshot: ReachabilitySnapshot) -> String? {
        guard previous.status == snapshot.status, let before = previous.path.network, let after = snapshot.path.network,
            before.id != after.id
        else { return nil }
        return "\(before.summary) → \(after.summary)"
    }
}
