/// What a probe over HTTP says about the network, beyond "a packet can leave".
public enum ValidationOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The probe endpoint answered `204 No Content` (or a `200` with an empty body): traffic reaches the internet.
    case validated
    /// Something on the way answered instead of the endpoint: a redirect, or a page instead of the `204`.
    /// `loginURL` is where to log in when it is known: the redirect's target, or the `user-portal-url` of the
    /// RFC 8908 API the network advertised (RFC 8910).
    case captivePortal(loginURL: String?)
    /// The internet is reachable but the probe failed: it timed out, the connection was refused, the probe's
    /// host name did not resolve, or the endpoint answered with an error status; `reason` says which.
    case limited(reason: String)
    /// No probe has answered: the internet is not reachable (no probe is sent then), or the first probe runs.
    case notChecked

    /// The name used in JSON: `validated`, `captivePortal`, `limited` or `notChecked`.
    public var name: String {
        switch self {
        case .validated: "validated"
        case .captivePortal: "captivePortal"
        case .limited: "limited"
        case .notChecked: "notChecked"
        }
    }

    /// Whether the probe validated the network.
    public var isValidated: Bool { self == .validated }

    /// `validated`, `captivePortal(http://login.example/)`, `limited(timed out)` or `notChecked`.
    public var description: String {
        switch self {
        case .captivePortal(let loginURL): "captivePortal(\(loginURL ?? "login URL unknown"))"
        case .limited(let reason): "limited(\(reason))"
        case .validated, .notChecked: name
        }
    }
}
