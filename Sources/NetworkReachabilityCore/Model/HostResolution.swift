/// Where the resolution of a host target stands, and what it found.
public struct HostResolution: Sendable, Hashable, Codable {
    /// The state of the latest resolution.
    public enum State: String, Sendable, Hashable, Codable {
        /// The first resolution has not ended yet: the status is `unknown`.
        case pending
        /// The resolver answered; ``HostResolution/addresses`` holds what it found (maybe none).
        case resolved
        /// The resolver failed: no such name, no server, or another error (``HostResolution/failure``).
        case failed
        /// The resolver did not answer within the timeout.
        case timedOut
    }

    /// The host name.
    public var name: String
    /// The state of the latest resolution.
    public var state: State
    /// The addresses found, in `getaddrinfo`'s order (RFC 6724).
    public var addresses: [IPAddress]
    /// The address whose path is reported: the first reachable one, else the first.
    public var chosenAddress: IPAddress?
    /// Why resolution failed or found nothing, in the resolver's words, when it did.
    public var failure: String?

    /// Makes a resolution record.
    public init(
        name: String, state: State, addresses: [IPAddress] = [], chosenAddress: IPAddress? = nil, failure: String? = nil
    ) {
        self.name = name
        self.state = state
        self.addresses = addresses
        self.chosenAddress = chosenAddress
        self.failure = failure
    }
}

extension HostResolution {
    private enum CodingKeys: String, CodingKey { case name, state = "resolution", addresses, chosenAddress, failure }

    /// Encodes `{"name", "resolution", "addresses", "chosenAddress", "failure"}`, absent values as null.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(state, forKey: .state)
        try container.encode(addresses, forKey: .addresses)
        try container.encode(chosenAddress, forKey: .chosenAddress)
        try container.encode(failure, forKey: .failure)
    }
}
