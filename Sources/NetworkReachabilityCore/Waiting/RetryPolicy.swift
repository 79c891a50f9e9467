/// How often and how patiently a ``ReachabilityWorkQueue`` retries a job that failed.
///
/// Only failures while the target is reachable count: an attempt interrupted because the network went
/// away is run again once it is back, without using up an attempt or waiting out a delay.
public struct RetryPolicy: Sendable, Hashable {
    /// The most attempts that may fail before the job fails for good; 1 means never retry.
    public let maximumAttempts: Int
    /// The delay after the first failure.
    public let initialDelay: Duration
    /// What each further failure multiplies the delay by (exponential backoff).
    public let multiplier: Double
    /// The longest delay between attempts.
    public let maximumDelay: Duration

    /// Five attempts, waiting 1, 2, 4 and 8 seconds between them.
    public static let standard = RetryPolicy(
        checked: (maximumAttempts: 5, initialDelay: .seconds(1), multiplier: 2, maximumDelay: .seconds(60)))

    /// Makes a policy.
    ///
    /// - Parameters:
    ///   - maximumAttempts: at least 1.
    ///   - initialDelay: not negative.
    ///   - multiplier: finite and at least 1.
    ///   - maximumDelay: at least `initialDelay`.
    /// - Throws: ``ReachabilityError/invalidRetryPolicy(reason:)`` naming the first number that cannot work.
    public init(
        maximumAttempts: Int = 5, initialDelay: Duration = .seconds(1), multiplier: Double = 2,
        maximumDelay: Duration = .seconds(60)
    ) throws(ReachabilityError) {
        guard maximumAttempts >= 1 else { throw .invalidRetryPolicy(reason: "maximumAttempts \(maximumAttempts) is below 1") }
        guard initialDelay >= .zero else { throw .invalidRetryPolicy(reason: "initialDelay \(initialDelay) is negative") }
        guard multiplier.isFinite, multiplier >= 1 else {
            throw .invalidRetryPolicy(reason: "multiplier \(multiplier) is not a finite number of at least 1")
        }
        guard maximumDelay >= initialDelay else {
            throw .invalidRetryPolicy(reason: "maximumDelay \(maximumDelay) is below initialDelay \(initialDelay)")
        }
        self.init(
            checked: (
                maximumAttempts: maximumAttempts, initialDelay: initialDelay, multiplier: multiplier, maximumDelay: maximumDelay
            ))
    }

    private init(checked: (maximumAttempts: Int, initialDelay: Duration, multiplier: Double, maximumDelay: Duration)) {
        maximumAttempts = checked.maximumAttempts
        initialDelay = checked.initialDelay
        multiplier = checked.multiplier
        maximumDelay = checked.maximumDelay
    }

    /// The delay before the next attempt after `failures` failed ones (1 or more):
    /// `initialDelay × multiplier^(failures − 1)`, at most ``maximumDelay``.
    public func delay(afterFailures failures: Int) -> Duration {
        guard multiplier > 1 else { return initialDelay }
        var delay = initialDelay
        for _ in 1..<max(failures, 1) {
            delay = delay * multiplier
            if delay >= maximumDelay { return maximumDelay }
        }
        return min(delay, maximumDelay)
    }
}
