import FoundationEssentials

/// Reads a probe's response the way Android's and NetworkManager's connectivity checks do.
enum ProbeClassifier {
    /// What a response says before any login URL is looked for.
    enum Verdict: Sendable, Hashable {
        case validated
        /// A portal; the redirect's target, made absolute, when it redirected.
        case portal(redirect: String?)
        case limited(String)
    }

    /// `204`, or `200` with an empty body, validates; another `2xx` (a page) or any `3xx` (a redirect) is a
    /// portal; any other status, or no response, is limited.
    static func classify(_ response: ProbeResponse, probeURL: String) -> Verdict {
        switch response {
        case .failed(let reason):
            return .limited(reason)
        case .http(let status, let location, let body):
            switch status {
            case 204: return .validated
            case 200 where body.isEmpty: return .validated  // some networks' answer to a 204 probe, as Android accepts
            case 200...299: return .portal(redirect: nil)
            case 300...399: return .portal(redirect: location.flatMap { absolute($0, relativeTo: probeURL) })
            default: return .limited("HTTP status \(status)")
            }
        }
    }

    /// `location` resolved against `base` (a `Location` header may be relative); `nil` when it is no URL.
    static func absolute(_ location: String, relativeTo base: String) -> String? {
        URL(string: location, relativeTo: URL(string: base))?.absoluteString
    }

    /// The `user-portal-url` of an RFC 8908 captive-portal API answer, when it says the network is captive (or
    /// does not say); `nil` for anything else, such as an HTML page.
    static func userPortalURL(fromAPIAnswer body: [UInt8]) -> String? {
        struct Answer: Decodable {
            var captive: Bool?
            var userPortalURL: String?
            enum CodingKeys: String, CodingKey {
                case captive
                case userPortalURL = "user-portal-url"
            }
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(body)), answer.captive != false else { return nil }
        return answer.userPortalURL
    }
}
