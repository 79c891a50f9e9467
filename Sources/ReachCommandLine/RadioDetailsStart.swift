package import Logging
import NetworkReachabilityKit
import NetworkReachabilityRadio

/// What ModemManager and NetworkManager say of the route's interface (radio technology, signal, roaming, metered),
/// read from the system bus when it is there.
package enum RadioDetailsStart {
    /// Starts reading the system bus and waits, at most `wait`, for the first read, so that the first line includes
    /// what the services know; without a bus or services this ends at once, and paths carry no details. With
    /// `verbose`, says on stderr what was read, or why nothing was.
    package static func start(verbose: Bool, logger: Logger, wait: Duration = .seconds(2)) {
        let reader = RadioDetails.start(logger: logger)
        reader.waitUntilRead(timeout: wait)
        if verbose { for line in reader.summary { Output.error("radio details: \(line)") } }
    }
}
