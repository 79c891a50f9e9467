import Dispatch
public import Foundation
public import NetworkReachabilityCore

extension Notification.Name {
    /// Posted on a `NetworkReachability` object's notification center when its flags change.
    ///
    /// The notification's `object` is the `NetworkReachability`; its `userInfo` holds the
    /// `ReachabilitySnapshot` under ``NetworkReachabilityCore/NetworkReachability/snapshotUserInfoKey``.
    public static let networkReachabilityChanged = Notification.Name("NetworkReachabilityChanged")
}

extension NetworkReachability {
    /// The `userInfo` key of the `ReachabilitySnapshot` in a ``Foundation/NSNotification/Name/networkReachabilityChanged`` notification.
    public static let snapshotUserInfoKey = "snapshot"

    private static let notificationName = "notifications"

    /// Posts ``Foundation/NSNotification/Name/networkReachabilityChanged`` on `center`, from `queue`, once the
    /// target is first evaluated and then whenever its flags change. Replaces an earlier call's posting.
    ///
    /// This bridge lives in its own library so that only its users pay for full Foundation (about
    /// 14 MiB of memory on Linux); the core uses FoundationEssentials-free Dispatch delivery.
    ///
    /// - Returns: whether posting started; `false` when the kernel subscription could not be opened.
    @discardableResult
    public func startPostingNotifications(
        to center: NotificationCenter = .default, onQueue queue: DispatchQueue = .main
    ) -> Bool {
        addLoggedConsumer(named: Self.notificationName, rule: .flags, queue: queue) { [weak self] snapshot in
            guard let self else { return }
            center.post(name: .networkReachabilityChanged, object: self, userInfo: [Self.snapshotUserInfoKey: snapshot])
        }
    }

    /// Stops posting notifications.
    public func stopPostingNotifications() {
        removeConsumer(named: Self.notificationName)
    }
}
