/// One evaluated state of a target: its flags and the path behind them.
public struct ReachabilitySnapshot: Sendable, Hashable {
    /// The target this state belongs to.
    public var target: ReachabilityTarget
    /// The Apple-compatible flags.
    public var flags: ReachabilityFlags
    /// The facts behind the flags.
    public var path: ReachabilityPath

    /// Makes a snapshot.
    public init(target: ReachabilityTarget, flags: ReachabilityFlags, path: ReachabilityPath) {
        self.target = target
        self.flags = flags
        self.path = path
    }

    /// The status the flags imply; `unknown` while a host's first resolution is pending, or while an IPv4
    /// address on an IPv6-only network waits for the first NAT64 discovery.
    public var status: NetworkReachabilityStatus {
        path.host?.state == .pending || path.awaitsNAT64Discovery ? .unknown : NetworkReachabilityStatus(flags)
    }
}
