import NetworkReachabilityCore
import NetworkReachabilityPOSIX

/// The link quality a simulated network's tests state by hand: what the kernel's reader measures on a real host.
package final class SimulatedLinkQuality: LinkQualitySource {
    private struct State {
        var qualities: [String: LinkQuality] = [:]
        var handler: (@Sendable (Set<String>) -> Void)?
        var statistics = QualityStatistics()
    }

    private let state = Locked(State())

    /// Makes a source that knows nothing yet: every interface is unknown.
    package init() {}

    /// Sets the quality of the interface named `name` (`nil`: unknown again), and tells the monitor when its class
    /// changed, as the real reader does.
    package func set(_ quality: LinkQuality?, ofInterface name: String) {
        let (changed, handler) = state.withLock { state in
            let before = state.qualities[name]?.effectiveType ?? .unknown
            state.qualities[name] = quality
            return ((quality?.effectiveType ?? .unknown) != before, state.handler)
        }
        if changed { handler?([name]) }
    }

    package func start(_ handler: @escaping @Sendable (Set<String>) -> Void) {
        state.withLock { $0.handler = handler }
    }

    package func stop() { state.withLock { $0.handler = nil } }

    package func quality(of interface: NetworkInterface) -> LinkQuality {
        state.withLock { $0.qualities[interface.name] } ?? .unmeasured
    }

    /// What was stated: a simulated network has no flows to read.
    package func measureOnce(_ interface: NetworkInterface) -> LinkQuality { quality(of: interface) }

    package var statistics: QualityStatistics { state.withLock { $0.statistics } }
}
