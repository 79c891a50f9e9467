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
    /// Another target, reachable only through the interface types `restriction` allows.
    indirect case restricted(ReachabilityTarget, InterfaceRestriction)

    /// Parses the words the `reach` command takes: `internet`, `link-local`, an IP literal, a host name, or a URL
    /// (text with `://`), which stands for its host.
    ///
    /// - Throws: ``ReachabilityError/invalidAddress(_:reason:)``, ``ReachabilityError/invalidHostName(_:reason:)``
    ///   or ``ReachabilityError/invalidURL(_:reason:)``.
    public init(parsing text: String) throws(ReachabilityError) {
        switch text {
        case "internet": self = .internet
        case "link-local": self = .linkLocal
        case _ where text.contains("://"): self = try ReachabilityTarget(url: text)
        default: self = try ReachabilityTarget(hostOrAddress: text)
        }
    }

    /// The host of a URL, such as `https://api.example.com:8443/v1?q=1`: what reachability can say about a URL is
    /// whether its host is reachable (the scheme, port, path and query play no part in routing).
    ///
    /// A bracketed IPv6 literal (`http://[2001:db8::1]/`, with its zone as `%25eth0`) is an address target, a
    /// name a host target.
    ///
    /// - Throws: ``ReachabilityError/invalidURL(_:reason:)`` without a `scheme://` or a host; else what
    ///   ``init(hostOrAddress:)`` throws for the host.
    public init(url text: String) throws(ReachabilityError) {
        guard let schemeEnd = text.firstRange(of: "://"), !text[..<schemeEnd.lowerBound].isEmpty,
            text[..<schemeEnd.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
        else { throw .invalidURL(text, reason: "it does not start with a scheme such as https://") }
        let rest = text[schemeEnd.upperBound...]
        var authority = rest.prefix { !"/?#".contains($0) }
        if let userEnd = authority.lastIndex(of: "@") { authority = authority[authority.index(after: userEnd)...] }
        let host: Substring
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL(text, reason: "no closing ]") }
            host = authority[authority.index(after: authority.startIndex)..<close]
        } else {
            host = authority.prefix { $0 != ":" }
        }
        guard !host.isEmpty else { throw .invalidURL(text, reason: "it has no host") }
        self = try ReachabilityTarget(hostOrAddress: String(host).replacing("%25", with: "%"))
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
        case .restricted(let target, let restriction): "\(target) [\(restriction)]"
        }
    }

    /// The host name this target resolves, restricted or not.
    /// Whether this is the internet, restricted or not: the one target whose path speaks for the resolver
    /// (`supportsDNS`).
    package var isInternet: Bool {
        switch self {
        case .internet: true
        case .restricted(let target, _): target.isInternet
        case .linkLocal, .address, .addressPair, .host: false
        }
    }

    package var hostName: HostName? {
        switch self {
        case .host(let name): name
        case .restricted(let target, _): target.hostName
        case .internet, .linkLocal, .address, .addressPair: nil
        }
    }
}

extension ReachabilityTarget: Codable {
    /// Decodes what ``description`` prints: `internet`, `link-local`, an address, `REMOTE from LOCAL`, a host name,
    /// and any of them restricted: `internet [not cellular]`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            if text.hasSuffix("]"), let open = text.ranges(of: " [").last,
                let restriction = InterfaceRestriction(parsing: text[open.upperBound..<text.index(before: text.endIndex)])
            {
                let inner = try ReachabilityTarget(fromDescription: String(text[..<open.lowerBound]))
                self = .restricted(inner, restriction)
                return
            }
            self = try ReachabilityTarget(fromDescription: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Reads what ``description`` prints for an unrestricted target.
    private init(fromDescription text: String) throws(ReachabilityError) {
        let pair = text.split(separator: " from ", maxSplits: 1).map(String.init)
        if pair.count == 2 {
            self = .addressPair(local: try IPAddress(pair[1]), remote: try IPAddress(pair[0]))
        } else {
            self = try ReachabilityTarget(parsing: text)
        }
    }

    /// Encodes the target as ``description`` prints it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
