import NetworkReachabilityPOSIX
import NetworkReachabilityKit
import NetworkReachabilityValidation
import ReachCommandLine

/// One watched target's lines: what `reach watch` prints for each state it hears, never a line equal to the one
/// before it; and, in human lines, each move to another known network as a line of its own,
/// `internet: network changed: home (a3f9…) → 7c21…` (`network under the VPN changed` for the link under a tunnel).
final class WatchedLines: Sendable {
    private struct Shown {
        var line: String
        /// The last network the target was known to be on: states with none between two do not hide a move.
        var network: NetworkIdentity?
        /// The same, of the link under the target's VPN while it has one.
        var underNetwork: NetworkIdentity?
    }

    private let printer: SnapshotPrinter
    private let target: String
    // Guarded by its lock, which is held while printing so lines leave in the order states arrive.
    private let shown = Locked<Shown?>(nil)

    init(printer: SnapshotPrinter, target: String) {
        self.printer = printer
        self.target = target
    }

    /// Prints what `snapshot` (with `validation`, for a validated internet) says that the last line did not.
    func print(_ snapshot: ReachabilitySnapshot, validation: ValidationOutcome? = nil) {
        shown.withLock { shown in
            let line = printer.line(snapshot, as: target, validation: validation)
            let network = snapshot.path.network ?? shown?.network
            let underNetwork = snapshot.path.isVPN ? snapshot.path.underlying.first?.network ?? shown?.underNetwork : nil
            defer { shown = Shown(line: line, network: network, underNetwork: underNetwork) }
            guard let previous = shown else { return Output.line(line) }
            if line != previous.line { Output.line(line) }
            if !printer.json, let before = previous.network, let after = snapshot.path.network, before.id != after.id {
                Output.line("\(target): network changed: \(NetworkIdentity.change(from: before, to: after))")
            }
            if !printer.json, let before = previous.underNetwork, let after = snapshot.path.underlying.first?.network,
                snapshot.path.isVPN, before.id != after.id
            {
                Output.line("\(target): network under the VPN changed: \(NetworkIdentity.change(from: before, to: after))")
            }
        }
    }
}
