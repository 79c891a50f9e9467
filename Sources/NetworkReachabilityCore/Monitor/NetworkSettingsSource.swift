/// Where ``NetworkSettings`` come from: a file of labels and overrides per network, a test's table.
///
/// A monitor with a source gives every path's ``ReachabilityPath/network`` the settings of its identity
/// (``NetworkIdentity/applying(_:)``), and when the source says they changed, gives every listened target its last
/// path with the new ones, with no new evaluation.
package protocol NetworkSettingsSource: AnyObject, Sendable {
    /// The settings in force for the network `id`, or `nil` when none are.
    func settings(for id: String) -> NetworkSettings?
    /// Sets the one handler the source calls, on any thread, when its settings changed.
    func onChange(_ handler: @escaping @Sendable () -> Void)
}
