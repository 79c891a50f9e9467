package import Logging
import NetworkReachabilitySettings

/// The labels and overrides of `/etc/reach/networks` (and the user's own file), given to every path this process
/// reports.
package enum NetworkSettingsStart {
    /// Reads the settings files and follows them. A file that is malformed or that another user could write is one
    /// error line on stderr, `logger` or not, and the command goes on without what it would have said.
    package static func start(logger: Logger) {
        var errors = logger
        if errors.logLevel > .error {
            errors = Logger(label: "reach") { _ in LineLogHandler(format: CommandFailure.lineFormat, level: .error) }
        }
        NetworkSettingsReader.start(logger: errors)
    }
}
