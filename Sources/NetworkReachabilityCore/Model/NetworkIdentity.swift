/// Which network a path's interface is attached to: the same network after a reboot, a DHCP renewal or a restart has
/// the same ``id``; another network with the same addresses behind another gateway has another.
///
/// The identity is a short salted hash of what the network itself shows (its gateway's link-layer address, its IPv6
/// router), never of the host's own addresses alone: 192.168.1.1 is every home and every café. The salt is per host
/// and kept, so the same network has the same ``id`` for every user and process of a host, and a log or a metric
/// that shows it shows no MAC address. ``ingredients`` says what the hash rests on, never the values.
public struct NetworkIdentity: Sendable, Hashable {
    /// One kind of fact an identity can rest on.
    public struct Ingredient: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
        /// The kind's name, as JSON writes it.
        public let rawValue: String
        /// Makes a kind from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The link-layer (MAC) address of the interface's gateway: the IPv4 default gateway's, or on a network
        /// without one the IPv6 router's.
        public static let gatewayMAC = Ingredient(rawValue: "gatewayMAC")
        /// The IPv6 router's link-local address, on a link without link-layer addresses (PPP, a tunnel, raw IP).
        public static let router = Ingredient(rawValue: "router")
        /// The name.
        public var description: String { rawValue }
        /// Orders kinds by name.
        public static func < (lhs: Ingredient, rhs: Ingredient) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The hash: 16 lowercase hexadecimal digits.
    public var id: String
    /// A name for the network, `home (a3f9…)` in ``summary``: the network's settings give it
    /// (``NetworkSettings/label``, the `NetworkReachabilitySettings` product's file); without settings the platform's
    /// readers leave it `nil`, and a simulated network's stated identity may carry one.
    public var label: String?
    /// What the network's settings say of its cost (``NetworkSettings/isMetered``): `true` or `false` decides
    /// ``ReachabilityPath/isExpensive`` whatever the interface's type or a network manager says; `nil` leaves it to
    /// them.
    public var isMetered: Bool?
    /// The URL the network's settings give a validator to probe on it, instead of its configured one
    /// (``NetworkSettings/validationURL``); `nil` without one.
    public var validationURL: String?
    /// What the hash rests on, in name order.
    public var ingredients: [Ingredient]

    /// Makes an identity.
    public init(
        id: String, label: String? = nil, ingredients: [Ingredient], isMetered: Bool? = nil, validationURL: String? = nil
    ) {
        self.id = id
        self.label = label
        self.ingredients = ingredients
        self.isMetered = isMetered
        self.validationURL = validationURL
    }

    /// This identity with `settings` in force (none: no label, no override): the one place a network takes its
    /// settings, so that settings removed from a file leave nothing behind.
    package func applying(_ settings: NetworkSettings?) -> NetworkIdentity {
        var applied = self
        applied.label = settings?.label
        applied.isMetered = settings?.isMetered
        applied.validationURL = settings?.validationURL
        return applied
    }

    /// Whether `name` names this network: its label, its id, or the id's first 4 or more digits as ``summary`` shows
    /// them (any case; a trailing `…` is ignored).
    public func isNamed(_ name: String) -> Bool {
        if name == label { return true }
        let digits = name.hasSuffix("…") ? name.dropLast() : Substring(name)
        return digits.count >= 4 && digits.allSatisfy(\.isHexDigit) && id.hasPrefix(digits.lowercased())
    }

    /// `home (a3f9…)` for a labelled network, `7c21…` otherwise: what `reach watch` prints.
    public var summary: String { summary(digits: 4) }

    private func summary(digits: Int) -> String {
        let short = id.prefix(digits) + (digits < id.count ? "…" : "")
        return label.map { "\($0) (\(short))" } ?? String(short)
    }

    /// `home (a3f9…) → 7c21…`: a move from one network to another as `reach watch` prints it, each id as short as
    /// ``summary``, longer where the two would read the same (one pair in 65,536, or a neighbour that chose its MAC
    /// address to collide).
    package static func change(from before: NetworkIdentity, to after: NetworkIdentity) -> String {
        var digits = 4
        while digits < min(before.id.count, after.id.count), before.id.prefix(digits) == after.id.prefix(digits) { digits += 1 }
        return "\(before.summary(digits: digits)) → \(after.summary(digits: digits))"
    }
}

extension NetworkIdentity: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, label, ingredients
        case isMetered = "metered"
        case validationURL = "validate"
    }

    /// Decodes what ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            label: try container.decodeIfPresent(String.self, forKey: .label),
            ingredients: try container.decodeIfPresent([Ingredient].self, forKey: .ingredients) ?? [],
            isMetered: try container.decodeIfPresent(Bool.self, forKey: .isMetered),
            validationURL: try container.decodeIfPresent(String.self, forKey: .validationURL))
    }

    /// Encodes `id`, `label` (null without one), `ingredients`, and the settings' overrides `metered` and `validate`
    /// where set (as the settings file spells them).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(label, forKey: .label)
        try container.encode(ingredients, forKey: .ingredients)
        try container.encodeIfPresent(isMetered, forKey: .isMetered)
        try container.encodeIfPresent(validationURL, forKey: .validationURL)
    }
}
