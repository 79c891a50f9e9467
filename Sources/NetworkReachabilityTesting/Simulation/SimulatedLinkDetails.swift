import NetworkReachabilityCore
import NetworkReachabilityPOSIX
/// The link details a simulated network's tests set by hand, settled as a real source settles them.
package final class SimulatedLinkDetails: LinkDetailsSource {
    private struct State {
        var details: [String: LinkDetails] = [:]
        var handler: (@Sendable (Set<String>?) -> Void)?
    }

    private let state = Locked(State())

    /// Makes a source that knows nothing yet.
    package init() {}

    /// Sets the details of the interface named `name` (`nil` forgets them); a signal that moved less than a step keeps
    /// the reading delivered before. Tells the handler when the settled details changed.
    package func set(_ details: LinkDetails?, ofInterface name: String) {
        let (changed, handler) = state.withLock { state in
            let settled = details?.settled(after: state.details[name])
            let changed = settled != state.details[name]
            state.details[name] = settled
            return (changed, state.handler)
        }
        if changed { handler?([name]) }
    }

    package func details(of interface: NetworkInterface) -> LinkDetails? { state.withLock { $0.details[interface.name] } }

    package func onChange(_ handler: @escaping @Sendable (Set<String>?) -> Void) { state.withLock { $0.handler = handler } }
}
