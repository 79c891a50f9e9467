/// What reachability is asked about.
///
/// Host names will join as one more case; every consumer switches over this type, so the compiler
/// shows each place that needs to learn about a new kind of target.
public enum ReachabilityTarget: Sendable, Hashable, CustomStringConvertible {
    /// The internet, Apple's `0.0.0.0` token: a default or split-default route, IPv4 or IPv6.
    case internet
    /// The link-local network, Apple's `169.254.0.0` token: an up interface with carrier, not
    /// loopback, that holds an IPv4 `169.254/16` or IPv6 `fe80::/10` address.
    case linkLocal
    /// One address, evaluated with one kernel route lookup.
    case address(IPAddress)
    /// A remote address reached from a given local address, which must be one of this host's.
    case addressPair(local: IPAddress, remote: IPAddress)

    /// Parses the words the `reach` command takes: `internet`, `link-local`, or an IP literal.
    ///
    /// - Throws: ``ReachabilityError/invalidAddress(_:reason:)`` for anything else.
    public init(parsing text: String) throws(ReachabilityError) {
        switch text {
        case "internet": self = .internet
        case "link-local": self = .linkLocal
        default: self = .address(try IPAddress(text))
        }
    }

    /// `internet`, `link-local`, the address, or `remote from local`.
    public var description: String {
        switch self {
        case .internet: "internet"
        case .linkLocal: "link-local"
        case .address(let address): address.description
        case .addressPair(let local, let remote): "\(remote) from \(local)"
        }
    }
}
