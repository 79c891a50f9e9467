extension Duration {
    /// The duration in whole milliseconds, held at `Int64`'s bounds rather than overflowing: a retry delay or an
    /// expiry of any size is stored as a time, never a trap.
    package var saturatingMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = whole.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return sumOverflow ? (whole < 0 ? .min : .max) : sum
    }

    /// `milliseconds` (since 1970) plus this duration, held at `Int64`'s bounds.
    package func after(_ milliseconds: Int64) -> Int64 {
        let (sum, overflow) = milliseconds.addingReportingOverflow(saturatingMilliseconds)
        return overflow ? (saturatingMilliseconds < 0 ? .min : .max) : sum
    }
}
