import ArgumentParser
import NetworkReachability

/// A positive number of seconds, at most an hour: `--resolution-timeout` and `reach nat64 --wait`.
struct ResolutionTimeout: ExpressibleByArgument, Sendable {
    static let standard = ResolutionTimeout(duration: NetworkReachability.defaultResolutionTimeout)

    let duration: Duration

    init(duration: Duration) {
        self.duration = duration
    }

    init?(argument: String) {
        guard let seconds = Double(argument), seconds > 0, seconds <= 3600 else { return nil }
        duration = .milliseconds(Int64(seconds * 1000))
    }

    /// The value in seconds, as `--help` shows a default.
    var defaultValueDescription: String { duration.secondsText }
}

extension Duration {
    /// The duration in seconds as a person writes them: `30`, `0.5`.
    var secondsText: String {
        let (seconds, attoseconds) = components
        return attoseconds == 0 ? "\(seconds)" : "\(Double(seconds) + Double(attoseconds) / 1e18)"
    }
}
