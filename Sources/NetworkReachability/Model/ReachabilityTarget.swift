/// What reachability is asked about.
///
/// Every consumer switches over this type, so the compiler shows each place that must learn about a new kind.
public enum ReachabilityTarget: Sendable, Hashable, CustomStringConvertible {
    /// The internet, Apple's `0.0.0.0` token: a default or split-default route, IPv4 or IPv6.
    case internet
    /// The link-local network, Apple's `169.254.0.0` token: an up interface with carrier, not
    /// loopback, that holds an IPv4 `169.254/16` or IPv6 `fe80::/10` address.
    case linkLocal
    /// One address, evaluated with one kernel route lookup.
    case address(IPAddress)
    /// A remote address reached from a given local address, which must be one of this host's.
    indirect case addressPair(local: IPAddress, remote: IPAddress)
    /// A named host: resolved off the caller's thread, then each address evaluated; reachable when any is.
    case host(HostName)

    /// Parses the words the `reach` command takes: `internet`, `link-local`, an IP literal, or a host name.
    ///
    /// - Throws: ``ReachabilityError/invalidAddress(_:reason:)`` or ``ReachabilityError/invalidHostName(_:reason:)``.
    public init(parsing text: String) throws(ReachabilityError) {
        switch text {
        case "internet": self = .internet
        case "link-local": self = .linkLocal
        default: self = try ReachabilityTarget(hostOrAddress: text)
        }
    }

    /// An IP literal as an address target (no DNS), anything else as a host name.
    ///
    /// Text with a `:`, or made only of digits and dots, is read as an address and fails as one.
    ///
    /// - Throws: ``ReachabilityError/invalidAddress(_:reason:)`` or ``ReachabilityError/invalidHostName(_:reason:)``.
    public init(hostOrAddress text: String) throws(ReachabilityError) {
        let looksNumeric = !text.isEmpty && text.utf8.allSatisfy { $0 == UInt8(ascii: ".") || ($0 >= 48 && $0 <= 57) }
        if text.contains(":") || looksNumeric {
            self = .address(try IPAddress(text))
        } else {
            self = .host(try HostName(text))
        }
    }

    /// `internet`, `link-local`, the address, or `remote from local`.
    public var description: String {
        switch self {
        case .internet: "internet"
        case .linkLocal: "link-local"
        case .address(let address): address.description
        case .addressPair(let local, let remote): "\(remote) from \(local)"
        case .host(let host): host.name
        }
    }
}
