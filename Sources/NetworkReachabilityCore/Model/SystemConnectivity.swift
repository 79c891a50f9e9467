/// What the system's network manager's own connectivity check says (NetworkManager's `Connectivity`): a second
/// opinion beside the package's validation. The raw values are the words of the JSON `systemConnectivity` key.
public enum SystemConnectivity: String, Sendable, Hashable, Codable, CaseIterable {
    /// No network connection at all.
    case none
    /// Behind a captive portal: the check was answered, but not as expected.
    case portal
    /// Connected, but the internet is not reached.
    case limited
    /// The internet is reached.
    case full
}
