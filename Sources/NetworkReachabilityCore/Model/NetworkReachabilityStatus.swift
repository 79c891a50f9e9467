/// Whether a target is reachable and over what kind of link, in Alamofire 5's terms.
public enum NetworkReachabilityStatus: Sendable, Hashable, CustomStringConvertible {
    /// The kind of link a reachable target is reached over.
    ///
    /// The raw values are the words of the JSON `connection` key: `ethernetOrWiFi` and `wwan`.
    public enum ConnectionType: String, Sendable, Hashable, Codable {
        /// Any link that is not cellular: wired Ethernet, Wi-Fi, loopback, tunnels.
        case ethernetOrWiFi
        /// A cellular link (the `isWWAN` flag).
        case cellular = "wwan"

        /// A cellular link: Alamofire 4's name.
        @available(*, deprecated, renamed: "cellular")
        public static var wwan: ConnectionType { .cellular }
    }

    /// Not evaluated yet: before the first evaluation, or a host name before its first resolution ends.
    case unknown
    /// The flags lack `reachable`, or a connection is required that cannot be made automatically.
    case notReachable
    /// Reachable over the given kind of link.
    case reachable(ConnectionType)

    /// The status the flags imply, by Alamofire's rule with cellular honoured: reachable needs `reachable`
    /// and either no `connectionRequired`, or an automatic way to connect (`connectionOnDemand` or
    /// `connectionOnTraffic`) without `interventionRequired`.
    public init(_ flags: ReachabilityFlags) {
        let canConnectAutomatically = flags.contains(.connectionOnDemand) || flags.contains(.connectionOnTraffic)
        let canConnectWithoutUserInteraction = canConnectAutomatically && !flags.contains(.interventionRequired)
        let isActuallyReachable =
            flags.contains(.reachable) && (!flags.contains(.connectionRequired) || canConnectWithoutUserInteraction)
        guard isActuallyReachable else {
            self = .notReachable
            return
        }
        self = .reachable(flags.contains(.isWWAN) ? .cellular : .ethernetOrWiFi)
    }

    /// Whether the status is `reachable` over any link.
    public var isReachable: Bool { if case .reachable = self { true } else { false } }

    /// Whether the status is `reachable(.cellular)`.
    public var isReachableOnCellular: Bool { self == .reachable(.cellular) }

    /// Whether the status is `reachable(.cellular)`: Alamofire 4's name.
    @available(*, deprecated, renamed: "isReachableOnCellular")
    public var isReachableOnWWAN: Bool { isReachableOnCellular }

    /// Whether the status is `reachable(.ethernetOrWiFi)`.
    public var isReachableOnEthernetOrWiFi: Bool { self == .reachable(.ethernetOrWiFi) }

    /// The name used in JSON: `unknown`, `notReachable` or `reachable`.
    public var name: String {
        switch self {
        case .unknown: "unknown"
        case .notReachable: "notReachable"
        case .reachable: "reachable"
        }
    }

    /// The connection type when reachable, else `nil`.
    public var connection: ConnectionType? {
        if case .reachable(let type) = self { type } else { nil }
    }

    /// `unknown`, `notReachable`, `reachable(ethernetOrWiFi)` or `reachable(cellular)`.
    public var description: String {
        switch self {
        case .reachable(.cellular): "reachable(cellular)"
        case .reachable(.ethernetOrWiFi): "reachable(ethernetOrWiFi)"
        case .unknown, .notReachable: name
        }
    }
}

extension NetworkReachabilityStatus: Codable {
    private enum CodingKeys: String, CodingKey { case status, connection }

    /// Decodes `{"status", "connection"}` as ``init(from:)`` of a snapshot reads them.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .status) {
        case "unknown": self = .unknown
        case "notReachable": self = .notReachable
        case "reachable": self = .reachable(try container.decode(ConnectionType.self, forKey: .connection))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .status, in: container, debugDescription: "no status is called \(other)")
        }
    }

    /// Encodes `{"status": "reachable", "connection": "ethernetOrWiFi"}`; `connection` is null unless reachable.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .status)
        try container.encode(connection, forKey: .connection)
    }
}
