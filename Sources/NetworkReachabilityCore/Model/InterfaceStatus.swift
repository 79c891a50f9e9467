/// One interface as `reach interfaces` lists it (`networkctl`'s list): its kind, state, carrier and addresses, and
/// whether it carries the internet.
public struct InterfaceStatus: Sendable, Hashable, Codable {
    /// The interface: name, index, classified type and the kernel's link kind.
    public var interface: NetworkInterface
    /// Administratively up (`IFF_UP`).
    public var isUp: Bool
    /// Has carrier (`IFF_LOWER_UP`): a cable in, Wi-Fi associated, a veth's peer up.
    public var hasCarrier: Bool
    /// The RFC 2863 operational state the kernel reports: `up`, `down`, `dormant`, `lowerLayerDown`, `testing`,
    /// `notPresent` or `unknown` (loopback and tunnels often say `unknown` while they carry).
    public var operationalState: String
    /// Its addresses with their prefix lengths, as `ip address` prints them: `192.0.2.2/24`, `fe80::1/64`.
    public var addresses: [String]
    /// Whether the internet's route leaves through it (IPv4 or IPv6): the interface that carries the internet.
    public var carriesInternet: Bool
    /// What a modem or network manager says of it (radio technology, signal, roaming, metered); `nil` unless a
    /// source of such details runs (`NetworkReachabilityRadio`) and knows the interface.
    public var details: LinkDetails? {
        get { storedDetails }
        set { storedDetails = newValue?.isEmpty == true ? nil : newValue }
    }
    private var storedDetails: LinkDetails?

    /// Makes an interface's status.
    public init(
        interface: NetworkInterface, isUp: Bool, hasCarrier: Bool, operationalState: String, addresses: [String],
        carriesInternet: Bool, details: LinkDetails? = nil
    ) {
        self.interface = interface
        self.isUp = isUp
        self.hasCarrier = hasCarrier
        self.operationalState = operationalState
        self.addresses = addresses
        self.carriesInternet = carriesInternet
        self.details = details
    }
}

extension InterfaceStatus {
    private enum CodingKeys: String, CodingKey {
        case isUp, hasCarrier, operationalState, addresses, carriesInternet
    }

    /// Decodes what ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            interface: try NetworkInterface(from: decoder), isUp: try container.decode(Bool.self, forKey: .isUp),
            hasCarrier: try container.decode(Bool.self, forKey: .hasCarrier),
            operationalState: try container.decode(String.self, forKey: .operationalState),
            addresses: try container.decode([String].self, forKey: .addresses),
            carriesInternet: try container.decode(Bool.self, forKey: .carriesInternet), details: try LinkDetails(from: decoder))
    }

    /// Encodes one flat object: the interface's keys (`name`, `index`, `type`, `linkKind`), then `isUp`,
    /// `hasCarrier`, `operationalState`, `addresses` and `carriesInternet`, and the keys of its ``details`` that are
    /// known, as a path's (`radioTechnology`, `signal`, `isRoaming`, `isMetered`…).
    public func encode(to encoder: any Encoder) throws {
        try interface.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(isUp, forKey: .isUp)
        try container.encode(hasCarrier, forKey: .hasCarrier)
        try container.encode(operationalState, forKey: .operationalState)
        try container.encode(addresses, forKey: .addresses)
        try container.encode(carriesInternet, forKey: .carriesInternet)
        try details?.encode(to: encoder)
    }
}
