import NIOConcurrencyHelpers
import NIOCore

/// exporter-toolkit's `rate_limit`: a token bucket of `burst` requests that fills by one every `interval`; a request
/// that finds it empty is answered 429 before its password is checked.
final class RateLimiter: Sendable {
    private let interval: Duration
    private let burst: Int
    /// The tokens, and when they were counted.
    private let bucket: NIOLockedValueBox<(tokens: Double, at: NIODeadline)>

    init(_ limit: WebConfiguration.RateLimit) {
        interval = limit.interval
        burst = limit.burst
        bucket = NIOLockedValueBox((Double(limit.burst), .now()))
    }

    /// Whether one more request may be answered at `now`, taking its token if so.
    func admits(at now: NIODeadline = .now()) -> Bool {
        let (seconds, attoseconds) = interval.components
        let intervalNanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        return bucket.withLockedValue { bucket in
            let elapsed = Double(max(0, (now - bucket.at).nanoseconds))
            bucket = (min(Double(burst), bucket.tokens + elapsed / intervalNanoseconds), now)
            guard bucket.tokens >= 1 else { return false }
            bucket.tokens -= 1
            return true
        }
    }
}
