public import Dispatch
import NetworkReachabilityPOSIX

/// Watches a target's path in `NWPathMonitor`'s shape: set ``pathUpdateHandler``, ``start(queue:)``, read
/// ``currentPath``, ``cancel()``. A port from Network.framework renames `NWPathMonitor`, `NWPath` and `NWInterface`
/// to `NetworkPathMonitor`, `NetworkPath` and `NetworkInterface`, and imports `NetworkReachabilityKit`.
///
/// ```swift
/// let monitor = NetworkPathMonitor()                  // or NetworkPathMonitor(requiredInterfaceType: .wifi)
/// monitor.pathUpdateHandler = { path in
///     print(path.status == .satisfied, path.isExpensive, path.usesInterfaceType(.cellular))
/// }
/// monitor.start(queue: DispatchQueue(label: "network"))
/// ```
///
/// `NetworkReachabilityKit` gives `init()`, `init(requiredInterfaceType:logger:)` and
/// `init(prohibitedInterfaceTypes:logger:)` (its documentation, under Extended Modules), as NWPathMonitor's.
///
/// The handler hears the path once it is first evaluated, then every change of flags or path (``NetworkReachability/updates``'
/// rule), on the queue given to ``start(queue:)``.
public final class NetworkPathMonitor: Sendable {
    private struct State {
        var handler: (@Sendable (NetworkPath) -> Void)?
        var queue: DispatchQueue?
        var latest: NetworkPath?
    }

    /// What the monitor watches: the internet, or the target it was made with.
    public let reachability: NetworkReachability
    private let state = Locked(State())
    private static let consumerName = "pathMonitor"

    /// Watches what `reachability` watches: any target, on the system's network or a simulated one.
    public init(reachability: NetworkReachability) { self.reachability = reachability }

    /// Called on the start queue with each new path. Set it before ``start(queue:)``; setting it later replaces it
    /// from the next path on.
    public var pathUpdateHandler: (@Sendable (NetworkPath) -> Void)? {
        get { state.withLock { $0.handler } }
        set { state.withLock { $0.handler = newValue } }
    }

    /// The queue given to ``start(queue:)``, until ``cancel()``.
    public var queue: DispatchQueue? { state.withLock { $0.queue } }

    /// The latest path handed to the handler since ``start(queue:)``; before the first one (or when not started), the
    /// path read from the kernel now.
    public var currentPath: NetworkPath {
        if let latest = state.withLock({ $0.latest }) { return latest }
        let snapshot = (try? reachability.currentSnapshot()) ?? .unanswered(reachability.target)
        return NetworkPath(snapshot)
    }

    /// Starts handing paths to ``pathUpdateHandler`` on `queue`. Starting again moves the handler to the new queue and
    /// hands it the current path.
    ///
    /// - Returns: whether it started; `false` when the kernel subscription could not be opened (then the reason is
    ///   ``NetworkReachability/listeningFailure`` or in the reachability's log).
    @discardableResult
    public func start(queue: DispatchQueue) -> Bool {
        state.withLock {
            $0.queue = queue
            $0.latest = nil
        }
        return reachability.addLoggedConsumer(named: Self.consumerName, rule: .snapshot, queue: queue) { [state] snapshot in
            let path = NetworkPath(snapshot)
            let handler = state.withLock { state in
                state.latest = path
                return state.handler
            }
            handler?(path)
        }
    }

    /// Stops handing paths: none reaches the handler once this returns, on the start queue (one already queued is
    /// dropped). The monitor can be started again.
    public func cancel() {
        reachability.removeConsumer(named: Self.consumerName)
        state.withLock {
            $0.queue = nil
            $0.latest = nil
        }
    }
}
