/// What a ``DurableWorkQueue`` holds at most; at either bound a submission throws ``QueueError/full(reason:)`` and
/// nothing is dropped.
public struct QueueLimits: Sendable {
    /// Jobs of every state, failed ones included; the done ones kept are not counted.
    public var maximumJobs = 100_000
    /// How many done jobs' outcomes are kept at least, the latest (each for 7 days at most); older ones are removed 64
    /// at a time, each batch followed by a truncation of the write-ahead log that held their commands.
    public var keptOutcomes = 1000
    /// The payloads' bytes together.
    public var maximumPayloadBytes = 256 * 1024 * 1024

    /// 100,000 jobs and 256 MiB of payloads; 1,000 done jobs' outcomes.
    public init() {}
}
