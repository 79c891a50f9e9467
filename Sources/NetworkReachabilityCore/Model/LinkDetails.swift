/// What a modem or a network manager knows of an interface that the kernel does not: the radio technology and signal
/// of a cellular or Wi-Fi link, roaming, whether the connection is metered, and the manager's own connectivity check
/// of the link.
///
/// Each field is `nil` when no source says it. On Linux they come from ModemManager and NetworkManager through the
/// `NetworkReachabilityRadio` product; a ``ReachabilityPath`` carries those of the interface its route uses.
public struct LinkDetails: Sendable, Hashable {
    /// The cellular generation, from ``accessTechnologies``.
    public var radioTechnology: RadioTechnology? { accessTechnologies.flatMap(RadioTechnology.init(accessTechnologies:)) }
    /// The source's access-technology bits as read: ModemManager's `MMModemAccessTechnology` on Linux.
    public var accessTechnologies: UInt32?
    /// The signal, as last delivered in steps (``SignalStrength/isStep(from:)``).
    public var signal: SignalStrength?
    /// Whether a cellular link is registered on a network other than its home one (3GPP registration state).
    public var isRoaming: Bool?
    /// Whether the connection is metered: NetworkManager's `Metered` is `yes` or `guess-yes`.
    public var isMetered: Bool?
    /// The network manager's own connectivity check of this link (NetworkManager's per-device check; its check of the
    /// whole host where it has none per device).
    public var systemConnectivity: SystemConnectivity?

    /// Makes details; every field is optional.
    public init(
        accessTechnologies: UInt32? = nil, signal: SignalStrength? = nil, isRoaming: Bool? = nil, isMetered: Bool? = nil,
        systemConnectivity: SystemConnectivity? = nil
    ) {
        self.accessTechnologies = accessTechnologies
        self.signal = signal
        self.isRoaming = isRoaming
        self.isMetered = isMetered
        self.systemConnectivity = systemConnectivity
    }

    /// Whether no field is known.
    public var isEmpty: Bool { self == LinkDetails() }

    /// These details as a listener should hear them after `delivered`: the signal stays as it was delivered unless
    /// the new reading is a step from it; every other field is taken as it is.
    public func settled(after delivered: LinkDetails?) -> LinkDetails {
        var settled = self
        if let signal, !signal.isStep(from: delivered?.signal) { settled.signal = delivered?.signal }
        return settled
    }

    /// `LTE, 72 %, roaming, metered`: what `reach` prints after the interface.
    public var summary: String {
        var parts: [String] = []
        if let radioTechnology { parts.append(radioTechnology.description) }
        if let signal { parts.append(signal.description) }
        if isRoaming == true { parts.append("roaming") }
        if isMetered == true { parts.append("metered") }
        if let systemConnectivity, systemConnectivity != .full { parts.append("NetworkManager: \(systemConnectivity.rawValue)") }
        return parts.joined(separator: ", ")
    }
}

extension LinkDetails: Codable {
    private enum CodingKeys: String, CodingKey {
        case radioTechnology, accessTechnologies, signal, isRoaming, isMetered, systemConnectivity
    }

    /// Decodes what ``encode(to:)`` writes; `radioTechnology` is derived from `accessTechnologies`, not read.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            accessTechnologies: try container.decodeIfPresent(UInt32.self, forKey: .accessTechnologies),
            signal: try container.decodeIfPresent(SignalStrength.self, forKey: .signal),
            isRoaming: try container.decodeIfPresent(Bool.self, forKey: .isRoaming),
            isMetered: try container.decodeIfPresent(Bool.self, forKey: .isMetered),
            systemConnectivity: try container.decodeIfPresent(SystemConnectivity.self, forKey: .systemConnectivity))
    }

    /// Encodes the known fields as keys of the object being written (a path's, an interface's): `radioTechnology`,
    /// `accessTechnologies`, `signal`, `isRoaming`, `isMetered`, `systemConnectivity`; an unknown one has no key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(radioTechnology, forKey: .radioTechnology)
        try container.encodeIfPresent(accessTechnologies, forKey: .accessTechnologies)
        try container.encodeIfPresent(signal, forKey: .signal)
        try container.encodeIfPresent(isRoaming, forKey: .isRoaming)
        try container.encodeIfPresent(isMetered, forKey: .isMetered)
        try container.encodeIfPresent(systemConnectivity, forKey: .systemConnectivity)
    }
}
