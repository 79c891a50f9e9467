import ArgumentParser
import NetworkReachabilityKit

/// A number of seconds an option takes (`30`, `0.5`), checked against the range the option can serve: timeouts,
/// waits and delays. Only digits and one decimal point are read, so `-5`, `+5`, `1e-9` and `inf` are refused with the
/// range in words rather than taken for something else.
package struct Seconds: Sendable, Equatable, CustomStringConvertible {
    package let duration: Duration

    package init(duration: Duration) { self.duration = duration }

    /// An option's transform: `text` as seconds within `range`, or a validation error that says the range.
    package static func parser(in range: ClosedRange<Double>) -> @Sendable (String) throws -> Seconds {
        { text in
            guard Self.isDecimal(text), let seconds = Double(text), range.contains(seconds) else {
                throw ValidationError("must be a number of seconds from \(words(range.lowerBound)) to \(words(range.upperBound))")
            }
            return Seconds(duration: .milliseconds(Int64((seconds * 1000).rounded())))
        }
    }

    /// `30`, `0.5`: as `--help` shows a default and messages say it.
    package var description: String { duration.secondsText }

    /// Digits with at most one decimal point among them.
    package static func isDecimal(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return (1...2).contains(parts.count)
            && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    private static func words(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)"
    }

    // MARK: - The ranges the commands serve

    /// A host name's resolution: from 10 ms to an hour.
    package static let resolution: ClosedRange<Double> = 0.01...3600
    /// A probe, a request, a discovery: from 100 ms to an hour.
    package static let exchange: ClosedRange<Double> = 0.1...3600
    /// How long `reach wait` waits: from a single check to a day.
    package static let wait: ClosedRange<Double> = 0...86_400
    /// The first delay before a queued command's retry: from 100 ms to a day.
    package static let retryDelay: ClosedRange<Double> = 0.1...86_400
    /// How long a queued command may wait before it expires: from a second to ten years.
    package static let expiry: ClosedRange<Double> = 1...315_360_000
    /// How long a queued command waits before it may run: from none to ten years.
    package static let delay: ClosedRange<Double> = 0...315_360_000
    /// How long one attempt of a queued command may run: from 100 ms to a week.
    package static let jobTimeout: ClosedRange<Double> = 0.1...604_800
    /// The default resolution timeout.
    package static let standardResolution = Seconds(duration: NetworkReachability.defaultResolutionTimeout)
}

/// A count an option takes (`256`), checked against the range the option can serve: only digits are read.
package struct Count: Sendable, Equatable, CustomStringConvertible {
    package let value: Int

    package init(_ value: Int) { self.value = value }

    /// An option's transform: `text` as a whole number within `range`, or a validation error that says the range.
    package static func parser(in range: ClosedRange<Int>) -> @Sendable (String) throws -> Count {
        { text in
            guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text),
                range.contains(value)
            else { throw ValidationError("must be a whole number from \(range.lowerBound) to \(range.upperBound)") }
            return Count(value)
        }
    }

    package var description: String { "\(value)" }
}

extension Duration {
    /// The duration in seconds as a person writes them: `30`, `0.5`.
    package var secondsText: String {
        let (seconds, attoseconds) = components
        return attoseconds == 0 ? "\(seconds)" : "\(Double(seconds) + Double(attoseconds) / 1e18)"
    }
}
