/// Which kinds of interface a target may be reached through: NWPathMonitor's `requiredInterfaceType` and
/// `prohibitedInterfaceTypes` (and ashleymills' `allowsCellularConnection = false`, which is ``noCellular``).
///
/// A restricted target is reachable only through an allowed interface. Where the route the host would use leaves
/// through one that is not allowed, the kernel is asked for a route out of each allowed interface (a lookup pinned
/// with `RTA_OIF`, checked against the table), never guessed; with none, the reason is
/// ``UnsatisfiedReason/prohibitedInterfaceType``.
public struct InterfaceRestriction: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The only type allowed, when there is one.
    public var requiredType: NetworkInterface.InterfaceType?
    /// Types never allowed.
    public var prohibitedTypes: Set<NetworkInterface.InterfaceType>

    /// Makes a restriction.
    public init(requiredType: NetworkInterface.InterfaceType? = nil, prohibitedTypes: Set<NetworkInterface.InterfaceType> = []) {
        self.requiredType = requiredType
        self.prohibitedTypes = prohibitedTypes
    }

    /// Anything but cellular: ashleymills' `allowsCellularConnection = false`.
    public static let noCellular = InterfaceRestriction(prohibitedTypes: [.cellular])

    /// Whether it restricts nothing.
    public var isEmpty: Bool { requiredType == nil && prohibitedTypes.isEmpty }

    /// Whether an interface of `type` is allowed.
    public func allows(_ type: NetworkInterface.InterfaceType) -> Bool {
        (requiredType == nil || requiredType == type) && !prohibitedTypes.contains(type)
    }

    /// Whether `path` may carry a restricted target: no interface it uses is of a prohibited type, the link under a
    /// VPN included (a tunnel is as cellular as what carries it, so `noCellular` refuses a VPN over a modem), and a
    /// required type is the route's interface's or the link's under it (a VPN over Wi-Fi uses Wi-Fi, as on Apple's
    /// platforms). A VPN whose underlying link is unknown is judged by its tunnel alone (``NetworkInterface/InterfaceType/other``).
    public func allows(_ path: ReachabilityPath) -> Bool {
        guard let interface = path.interface else { return true }
        let types = [interface.type] + path.underlying.map(\.interface.type)
        return requiredType.map(types.contains) ?? true && prohibitedTypes.isDisjoint(with: types)
    }
    /// `only wifi`, `not cellular`, or both: `only wiredEthernet; not cellular`.
    public var description: String {
        var parts: [String] = []
        if let requiredType { parts.append("only \(requiredType.rawValue)") }
        if !prohibitedTypes.isEmpty {
            parts.append("not " + prohibitedTypes.map(\.rawValue).sorted().joined(separator: ", "))
        }
        return parts.joined(separator: "; ")
    }

    /// Reads what ``description`` prints; `nil` for other text.
    init?(parsing text: Substring) {
        self.init()
        for part in text.split(separator: "; ") {
            if part.hasPrefix("only "), let type = NetworkInterface.InterfaceType(rawValue: String(part.dropFirst(5))) {
                requiredType = type
            } else if part.hasPrefix("not ") {
                for name in part.dropFirst(4).split(separator: ", ") {
                    guard let type = NetworkInterface.InterfaceType(rawValue: String(name)) else { return nil }
                    prohibitedTypes.insert(type)
                }
            } else {
                return nil
            }
        }
    }
}
