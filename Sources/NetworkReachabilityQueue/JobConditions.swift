import NetworkReachabilityCore

/// When a job of a ``DurableWorkQueue`` may run, stored with it and evaluated on the live state of the library: the
/// target's path (reachable, not expensive, not roaming, on the network named, through the interface types allowed) and, with a validator,
/// whether the internet answered its probe.
public struct JobConditions: Codable, Sendable, Hashable {
    /// The target whose path decides: `internet`, a host name, a URL or an address, as `reach` takes it.
    public var target = "internet"
    /// The target is reachable.
    public var reachable = true
    /// The internet answered a validation probe (a captive portal or a dead uplink does not count).
    public var validated = false
    /// The path is not expensive (cellular, or marked metered; through a VPN, the link under it too).
    public var unmetered = false
    /// The path is not over a roaming modem, directly or under its VPN (`ReachabilityPath.isRoaming`).
    public var notRoaming = false
    /// Only through an interface of this type.
    public var requiredType: NetworkInterface.InterfaceType?
    /// Never through an interface of these types.
    public var prohibitedTypes: Set<NetworkInterface.InterfaceType> = []
    /// Only over a link measured at least this good (`LinkQuality.effectiveType`): `3g` waits out a `2g`-like
    /// link. The target's quality is measured while such a job is queued.
    public var minimumQuality: EffectiveConnectionType?
    /// Only on this network: a label of the network settings, or a network's id (`NetworkIdentity.isNamed(_:)`).
    public var network: String?

    /// The conditions: by default, the internet reachable through any interface.
    public init(
        target: String = "internet", reachable: Bool = true, validated: Bool = false, unmetered: Bool = false,
        notRoaming: Bool = false, requiredType: NetworkInterface.InterfaceType? = nil,
        prohibitedTypes: Set<NetworkInterface.InterfaceType> = [], minimumQuality: EffectiveConnectionType? = nil,
        network: String? = nil
    ) {
        self.target = target
        self.reachable = reachable
        self.validated = validated
        self.unmetered = unmetered
        self.notRoaming = notRoaming
        self.requiredType = requiredType
        self.prohibitedTypes = prohibitedTypes
        self.minimumQuality = minimumQuality
        self.network = network
    }

    /// The target the conditions watch, restricted to the interface types they allow.
    ///
    /// - Throws: `ReachabilityError` when `target` is no internet, address, host name or URL.
    package func reachabilityTarget() throws(ReachabilityError) -> ReachabilityTarget {
        let parsed = try ReachabilityTarget(parsing: target)
        let restriction = InterfaceRestriction(requiredType: requiredType, prohibitedTypes: prohibitedTypes)
        return restriction.isEmpty ? parsed : .restricted(parsed, restriction)
    }

    /// Whether the conditions hold on `snapshot`, the target's latest state, and `isValidated`, the validator's
    /// latest outcome: one rule for every job and every look.
    func hold(on snapshot: ReachabilitySnapshot?, isValidated: Bool) -> Bool {
        guard let snapshot else {
            return !reachable && !validated && !unmetered && !notRoaming && minimumQuality == nil && network == nil
        }
        if reachable && !snapshot.status.isReachable { return false }
        if validated && !isValidated { return false }
        if unmetered && snapshot.path.isExpensive { return false }
        if notRoaming && snapshot.path.isRoaming { return false }
        if let minimumQuality, (snapshot.path.quality?.effectiveType ?? .unknown) < minimumQuality { return false }
        if let network, snapshot.path.network?.isNamed(network) != true { return false }
        return true
    }
}
