// What the example uses without making it: the reader's own view model and its queue.
#if canImport(NetworkReachabilityTesting)
    import NetworkReachabilityTesting

    let ui = DispatchQueue(label: "ui")

    /// Shows a banner while the internet is not reachable, as the test at the README's example checks.
    final class OfflineBanner: @unchecked Sendable {
        private(set) var isShown = false
        private let reachability: NetworkReachability

        init(reachability: NetworkReachability, queue: DispatchQueue) {
            self.reachability = reachability
            reachability.startListening(onQueue: queue) { [weak self] status in self?.isShown = !status.isReachable }
        }
    }
#endif
