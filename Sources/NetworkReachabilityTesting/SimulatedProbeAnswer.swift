/// What a probe endpoint on a ``SimulatedNetwork`` answers (see ``SimulatedNetwork/setProbeAnswer(_:for:)``).
public enum SimulatedProbeAnswer: Sendable, Hashable {
    /// `204 No Content`: the network validates.
    case noContent
    /// `302 Found` to `location`: a captive portal that redirects to its login page.
    case redirect(to: String)
    /// `200 OK` with this page: a captive portal that answers in the endpoint's place.
    case page(String)
    /// An HTTP status with no body, such as 503.
    case status(Int)
    /// No answer within the probe's timeout (returned at once: tests need not wait).
    case timeout
    /// The connection is refused.
    case refused
    /// The probe's host name does not resolve.
    case unresolved
}
