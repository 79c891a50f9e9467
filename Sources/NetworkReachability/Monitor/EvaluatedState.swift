/// A snapshot's flags and path without its target: what the monitor's slots and the listener hubs keep of the
/// latest answer, as each knows its target already. 12 bytes, where a snapshot is 48, and 10,000 listening
/// targets each keep two.
struct EvaluatedState: Equatable {
    // The reference first: 12 bytes, so that an optional one fits in 16.
    let path: ReachabilityPath
    let flags: ReachabilityFlags

    init(_ snapshot: ReachabilitySnapshot) {
        flags = snapshot.flags
        path = snapshot.path
    }

    /// The snapshot of `target` in this state.
    func snapshot(of target: ReachabilityTarget) -> ReachabilitySnapshot {
        ReachabilitySnapshot(target: target, flags: flags, path: path)
    }

    /// Whether `snapshot` holds this state (its target is not compared).
    func matches(_ snapshot: ReachabilitySnapshot) -> Bool { flags == snapshot.flags && path == snapshot.path }
}
