/// What a host's owner says of one network (``NetworkIdentity``): a name, and overrides of what the platform would
/// decide. The `NetworkReachabilitySettings` product reads them from a file and applies them to every path.
public struct NetworkSettings: Sendable, Hashable {
    /// The network's name: ``NetworkIdentity/label``.
    public var label: String?
    /// `true` or `false` decides ``ReachabilityPath/isExpensive`` on this network; `nil` leaves it to the
    /// interface's type and a network manager.
    public var isMetered: Bool?
    /// The URL a validator probes on this network instead of its configured one.
    public var validationURL: String?

    /// Makes settings.
    public init(label: String? = nil, isMetered: Bool? = nil, validationURL: String? = nil) {
        self.label = label
        self.isMetered = isMetered
        self.validationURL = validationURL
    }

    /// Whether they say nothing.
    public var isEmpty: Bool { label == nil && isMetered == nil && validationURL == nil }

    /// These settings with what `other` says put over them, field by field: a user's file over the host's.
    public func overridden(by other: NetworkSettings) -> NetworkSettings {
        NetworkSettings(
            label: other.label ?? label, isMetered: other.isMetered ?? isMetered,
            validationURL: other.validationURL ?? validationURL)
    }
}
