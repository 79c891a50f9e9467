/// Where a path's ``LinkQuality`` comes from: a platform's passive reader of its TCP flows (Linux: sock_diag), or a
/// simulated network's settings.
///
/// The monitor starts it while at least one consumer measures quality and stops it when the last one leaves, so a
/// process that never asks reads nothing. A source estimates each interface from its samples (``QualityEstimator``)
/// and says when an interface's class changed; the figures it gives with a path are those of that moment.
package protocol LinkQualitySource: AnyObject, Sendable {
    /// Starts measuring, and calls `handler` (on any thread) with the names of the interfaces whose class changed.
    /// Measuring that cannot start (a kernel that refuses the reader) leaves every interface unknown, and says why
    /// in ``statistics``.
    func start(_ handler: @escaping @Sendable (_ interfaces: Set<String>) -> Void)
    /// Stops measuring; the samples are forgotten.
    func stop()
    /// The quality of `interface` as measuring estimates it now, with no read; unknown while not measuring.
    func quality(of interface: NetworkInterface) -> LinkQuality
    /// The quality of `interface` from one read of the flows open now: a read with no consumer measuring. While
    /// measuring, the estimate (``quality(of:)``).
    func measureOnce(_ interface: NetworkInterface) -> LinkQuality
    /// What the source has counted.
    var statistics: QualityStatistics { get }
}

/// What a quality source has counted: its reads of the kernel and what they brought.
public struct QualityStatistics: Sendable, Hashable {
    /// Reads of every open flow (sock_diag dumps on Linux).
    public var reads = 0
    /// Closing flows the kernel reported on its own (sock_diag's destroy events on Linux).
    public var events = 0
    /// Samples counted for some interface.
    public var samples = 0
    /// Flows not counted: on-link, loopback, or with no round trip measured yet.
    public var skippedFlows = 0
    /// Messages dropped because they could not be parsed.
    public var malformedMessages = 0
    /// Datagrams dropped because a user-space process, not the kernel, sent them.
    public var foreignMessages = 0
    /// Whether the kernel reports closing flows as events (Linux: sock_diag's destroy groups); without, the reader
    /// reads on a timer.
    public var hasEvents = false

    /// Makes empty counters.
    public init() {}

    /// These counters and `other`'s, added; events as either had them.
    package func adding(_ other: QualityStatistics) -> QualityStatistics {
        var total = self
        total.reads += other.reads
        total.events += other.events
        total.samples += other.samples
        total.skippedFlows += other.skippedFlows
        total.malformedMessages += other.malformedMessages
        total.foreignMessages += other.foreignMessages
        total.hasEvents = hasEvents || other.hasEvents
        return total
    }
}
