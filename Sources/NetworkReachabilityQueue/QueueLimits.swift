/// What a ``DurableWorkQueue`` holds at most; at either bound a submission throws ``QueueError/full(reason:)`` and
/// nothing is dropped.
public struct QueueLimits: Sendable {
    /// Jobs of every state, failed ones included.
    public var maximumJobs = 100_000
    /// The payloads' bytes together.
    public var maximumPayloadBytes = 256 * 1024 * 1024

    /// 100,000 jobs and 256 MiB of payloads.
    public init() {}
}
