extension Duration {
    /// The duration in whole milliseconds, held at `Int64`'s bounds rather than overflowing: a timeout, delay or
    /// lifetime of any size becomes a time, never a trap. The package's one conversion of a `Duration` to a count.
    public var saturatingMilliseconds: Int64 { saturating(per: 1_000, attosecondsPerUnit: 1_000_000_000_000_000) }

    /// The duration in whole nanoseconds, held at `Int64`'s bounds (about 292 years).
    public var saturatingNanoseconds: Int64 { saturating(per: 1_000_000_000, attosecondsPerUnit: 1_000_000_000) }

    /// `milliseconds` (on any clock counted in them: the monotonic clock, or since 1970) plus this duration, held at
    /// `Int64`'s bounds: a deadline.
    public func after(_ milliseconds: Int64) -> Int64 {
        let (sum, overflow) = milliseconds.addingReportingOverflow(saturatingMilliseconds)
        return overflow ? (saturatingMilliseconds < 0 ? .min : .max) : sum
    }

    private func saturating(per second: Int64, attosecondsPerUnit: Int64) -> Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: second)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = whole.addingReportingOverflow(attoseconds / attosecondsPerUnit)
        return sumOverflow ? (whole < 0 ? .min : .max) : sum
    }
}
