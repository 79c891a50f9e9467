import ArgumentParser
package import Logging
import NetworkReachabilityKit

/// `--verbose` of every command that reads the network: the monitor's work, and what the radio reader read, on stderr.
package struct VerboseOption: ParsableArguments {
    package init() {}

    @Flag(
        help: """
            Log the monitor's work to stderr: each kernel batch, socket overflows and re-reads, dropped messages, and \
            what was read from ModemManager and NetworkManager, or why nothing was.
            """)
    package var verbose = false

    /// Debug and up, to stderr, so stdout keeps only what the command prints; silent without `--verbose`.
    package var logger: Logger {
        guard verbose else { return NetworkReachability.silentLogger }
        var logger = Logger(label: "reach") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = .debug
        return logger
    }

    /// As ``logger``, but warnings and errors go to stderr without `--verbose` too: for a daemon whose failures
    /// must be seen (`reach queue run`'s full disk, damaged file).
    package var loggerWithWarnings: Logger {
        guard !verbose else { return logger }
        var logger = Logger(label: "reach") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = .warning
        return logger
    }
}
