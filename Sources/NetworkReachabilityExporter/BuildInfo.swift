import NetworkReachabilityCore

/// `reach_build_info`'s labels, as Prometheus' own exporters give theirs (`version`, `revision`, `goversion`, `goos`,
/// `goarch`): the library's version, the commit it was built from (`revision`, which the `BuildRevision` plugin
/// writes), the Swift compiler, the operating system and the processor.
enum BuildInfo {
    static let help = "Always 1: the reach that serves these series, by version, revision, Swift version, OS and architecture."

    static var labels: [(String, String)] {
        [
            ("version", NetworkReachability.version), ("revision", revision), ("swift_version", swiftVersion), ("os", os),
            ("arch", arch),
        ]
    }

    /// The compiler's language version, to the minor: `6.3`.
    static var swiftVersion: String {
        #if compiler(>=7.0)
            "7"
        #elseif compiler(>=6.4)
            "6.4"
        #elseif compiler(>=6.3)
            "6.3"
        #elseif compiler(>=6.2)
            "6.2"
        #else
            "6"
        #endif
    }

    /// As Go's `GOOS` spells it.
    static var os: String {
        #if os(Linux)
            "linux"
        #elseif os(macOS)
            "darwin"
        #elseif os(FreeBSD)
            "freebsd"
        #else
            "unknown"
        #endif
    }

    /// As Go's `GOARCH` spells it.
    static var arch: String {
        #if arch(x86_64)
            "amd64"
        #elseif arch(arm64)
            "arm64"
        #elseif arch(arm)
            "arm"
        #elseif arch(i386)
            "386"
        #elseif arch(riscv64)
            "riscv64"
        #else
            "unknown"
        #endif
    }
}
