import NetworkReachabilityKit

/// A target as the user typed it, with the text kept for output (`target` is "the address as given").
struct TargetArgument: Sendable {
    let text: String
    let target: ReachabilityTarget
    /// What to say on stderr when the target is a URL's host: which host stands for it.
    let urlNotice: String?

    private init(text: String, target: ReachabilityTarget, urlNotice: String?) {
        self.text = text
        self.target = target
        self.urlNotice = urlNotice
    }

    /// The same target, reachable only through the interface types `restriction` allows: `internet [not cellular]`.
    func restricted(to restriction: InterfaceRestriction) -> TargetArgument {
        TargetArgument(text: "\(text) [\(restriction)]", target: .restricted(target, restriction), urlNotice: urlNotice)
    }

    /// Whether it is the internet, restricted or not: what `--validate` goes with.
    var isInternet: Bool { target.isInternet }

    /// Parses `internet`, `link-local`, an IP literal, a host name or a URL; with `from`, makes an address pair.
    ///
    /// A URL stands for its host, which is then the text printed, and ``urlNotice`` says so.
    init(_ text: String, from local: String? = nil) throws(ReachabilityError) {
        let parsed = try ReachabilityTarget(parsing: text)
        let isURL = text.contains("://")
        self.text = isURL ? parsed.description : text
        urlNotice = isURL ? "\(text) is a URL; its host \(parsed) is the target" : nil
        guard let local else {
            target = parsed
            return
        }
        guard case .address(let remote) = parsed else {
            throw .invalidAddress(text, reason: "--from needs an address target")
        }
        target = .addressPair(local: try IPAddress(local), remote: remote)
    }
}
