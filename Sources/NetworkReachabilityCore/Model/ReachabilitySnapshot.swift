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

    /// What is said of `target` when the system gave no answer (its evaluation failed): no flags and no path, so
    /// not reachable.
    package static func unanswered(_ target: ReachabilityTarget) -> ReachabilitySnapshot {
        ReachabilitySnapshot(target: target, flags: [], path: .none)
    }

    /// This snapshot without its path's ``ReachabilityPath/quality``: what a consumer that does not measure quality
    /// sees. The same snapshot, uncopied, when it has none.
    package var withoutQuality: ReachabilitySnapshot {
        guard path.quality != nil else { return self }
        var plain = self
        plain.path.quality = nil
        return plain
    }

    /// The status the flags imply; `unknown` while a host's first resolution is pending, or while an IPv4
    /// address on an IPv6-only network waits for the first NAT64 discovery.
    public var status: NetworkReachabilityStatus {
        path.host?.state == .pending || path.awaitsNAT64Discovery ? .unknown : NetworkReachabilityStatus(flags)
    }
}

extension ReachabilitySnapshot: Codable {
    private enum CodingKeys: String, CodingKey { case target, flags, flagsString }

    /// Decodes what ``encode(to:)`` writes; the status follows from the flags and path, as it always does.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var path = try ReachabilityPath(from: decoder)
        // The one unknown status with no host behind it: an IPv4 address waiting for the first NAT64 discovery.
        let status = try NetworkReachabilityStatus(from: decoder)
        path.awaitsNAT64Discovery = path.host == nil && status == .unknown
        self.init(
            target: try container.decode(ReachabilityTarget.self, forKey: .target),
            flags: try container.decode(ReachabilityFlags.self, forKey: .flags), path: path)
    }

    /// Encodes one flat object, the JSON `reach --json` prints: `target`, `status` and `connection`, `flags` (their
    /// names) and `flagsString`, then the path's keys (see ``ReachabilityPath/encode(to:)``).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(target, forKey: .target)
        try container.encode(flags, forKey: .flags)
        try container.encode(flags.flagsString, forKey: .flagsString)
        try status.encode(to: encoder)
        try path.encode(to: encoder)
    }
}
