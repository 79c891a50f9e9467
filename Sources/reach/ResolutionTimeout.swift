import ArgumentParser
import NetworkReachability

/// `--resolution-timeout SECONDS`: a positive number of seconds, at most an hour.
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

    var defaultValueDescription: String { "5" }
}
