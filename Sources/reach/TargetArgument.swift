import NetworkReachability

/// A target as the user typed it, with the text kept for output (`target` is "the address as given").
struct TargetArgument: Sendable {
    let text: String
    let target: ReachabilityTarget

    /// Parses `internet`, `link-local` or an IP literal; with `from`, makes an address pair.
    init(_ text: String, from local: String? = nil) throws(ReachabilityError) {
        self.text = text
        let parsed = try ReachabilityTarget(parsing: text)
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
