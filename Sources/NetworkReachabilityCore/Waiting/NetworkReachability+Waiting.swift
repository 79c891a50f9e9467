extension NetworkReachability {
    /// Suspends until the target is reachable and returns the status that satisfied the wait.
    ///
    /// Returns as soon as the target is first evaluated when it is reachable already; otherwise when a
    /// kernel change makes it reachable. It listens through the process's one kernel subscription while
    /// it waits: no polling, and no thread is blocked.
    ///
    /// ```swift
    /// let status = try await NetworkReachability().waitUntilReachable(timeout: .seconds(30))
    /// ```
    ///
    /// Reachable means a packet can leave toward the target, not that it will be answered: send the
    /// request after this returns, and handle its failure as usual.
    ///
    /// - Parameter timeout: the longest wait, counted from the call; `nil` waits until the task is cancelled.
    /// - Returns: `reachable(.ethernetOrWiFi)` or `reachable(.cellular)`.
    /// - Throws: ``ReachabilityError/timedOut(_:)`` when the timeout passes first; `CancellationError` when the
    ///   task is cancelled; ``ReachabilityError/invalidTimeout(_:)`` for a negative timeout; the kernel
    ///   subscription's error when it cannot be opened or ends (``listeningFailure``).
    public func waitUntilReachable(timeout: Duration? = nil) async throws -> NetworkReachabilityStatus {
        try await waitForStatus(timeout: timeout) { $0.isReachable }
    }

    /// Suspends until the target's status satisfies `condition` and returns that status.
    ///
    /// `condition` is called with the status after the first evaluation and after each change of status,
    /// on the library's monitor thread: keep it quick. Use it to wait until the network is gone, or until a
    /// target is reachable over a link that is not cellular.
    ///
    /// - Parameters:
    ///   - timeout: the longest wait, counted from the call; `nil` waits until the task is cancelled.
    ///   - condition: what the status must satisfy.
    /// - Throws: as ``waitUntilReachable(timeout:)`` does.
    public func waitForStatus(
        timeout: Duration? = nil, where condition: @escaping @Sendable (NetworkReachabilityStatus) -> Bool
    ) async throws -> NetworkReachabilityStatus {
        if let timeout, timeout < .zero { throw ReachabilityError.invalidTimeout(timeout) }
        try Task.checkCancellation()
        let wait = SnapshotWait(reachability: self, timeout: timeout) { condition($0.status) }
        return try await wait.run().status
    }

    /// Suspends until the target is reachable over a link at least as good as `minimum`
    /// (``LinkQuality/effectiveType``), and returns the snapshot that satisfied the wait. The wait measures quality
    /// whatever ``measuresQuality`` says; with `minimum` ``EffectiveConnectionType/unknown``, any reachable link will do.
    ///
    /// - Parameters:
    ///   - minimum: the worst class accepted: `.type3G` accepts `3g` and `4g`.
    ///   - timeout: the longest wait, counted from the call; `nil` waits until the task is cancelled.
    /// - Throws: as ``waitUntilReachable(timeout:)`` does.
    public func waitUntilQuality(
        atLeast minimum: EffectiveConnectionType, timeout: Duration? = nil
    ) async throws -> ReachabilitySnapshot {
        if let timeout, timeout < .zero { throw ReachabilityError.invalidTimeout(timeout) }
        try Task.checkCancellation()
        let wait = SnapshotWait(reachability: self, timeout: timeout, rule: .snapshot, measuresQuality: true) {
            $0.status.isReachable && ($0.path.quality?.effectiveType ?? .unknown) >= minimum
        }
        return try await wait.run()
    }

    /// Suspends until a snapshot of the target satisfies `condition` (the current one included), and returns it: a
    /// wait for what a status cannot say, such as an unmetered path (``ReachabilityPath/isExpensive``) or a named
    /// network (``NetworkIdentity/isNamed(_:)``). `condition` sees every change of the path, on the monitor's thread:
    /// keep it quick.
    ///
    /// - Parameters:
    ///   - timeout: the longest wait, counted from the call; `nil` waits until the task is cancelled.
    ///   - condition: what the snapshot must satisfy.
    /// - Throws: as ``waitUntilReachable(timeout:)`` does.
    public func waitForSnapshot(
        timeout: Duration? = nil, where condition: @escaping @Sendable (ReachabilitySnapshot) -> Bool
    ) async throws -> ReachabilitySnapshot {
        if let timeout, timeout < .zero { throw ReachabilityError.invalidTimeout(timeout) }
        try Task.checkCancellation()
        return try await SnapshotWait(reachability: self, timeout: timeout, rule: .snapshot, condition: condition).run()
    }
}
