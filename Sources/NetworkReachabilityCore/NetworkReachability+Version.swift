extension NetworkReachability {
    /// This package's version, as released (Semantic Versioning); `reach --version` prints it.
    public static let version = "0.2.0"
}
