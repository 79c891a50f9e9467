package import NetworkReachabilityPOSIX

/// Why a reachability object could not be made or a state could not be read.
public enum ReachabilityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not an IP address; `reason` says what is wrong.
    case invalidAddress(String, reason: String)
    /// The text is not a host name; `reason` says what is wrong.
    case invalidHostName(String, reason: String)
    /// The text is not a URL with a host; `reason` says what is wrong.
    case invalidURL(String, reason: String)
    /// The text is not a NAT64 prefix RFC 6052 allows; `reason` says what is wrong.
    case invalidNAT64Prefix(String, reason: String)
    /// The zone of an IPv6 address names no interface on this host.
    case unknownZone(String)
    /// The local address of an address pair is not one of this host's addresses.
    case localAddressNotOwned(IPAddress)
    /// The local and remote addresses of a pair are of different families.
    case familyMismatch(local: IPAddress, remote: IPAddress)
    /// A resolution timeout is not greater than zero and at most ``NetworkReachability/maximumResolutionTimeout``.
    case invalidResolutionTimeout(Duration)
    /// A wait's timeout is negative.
    case invalidTimeout(Duration)
    /// A retry policy's numbers cannot work; `reason` says which.
    case invalidRetryPolicy(reason: String)
    /// A wait ended because its condition did not hold within the timeout it was given.
    case timedOut(Duration)
    /// The named network namespace the subscription lived in was deleted (`ip netns del`): its file's path.
    case networkNamespaceDeleted(String)
    /// A system call failed: its name and `errno`.
    case systemCallFailed(call: String, errno: Int32)
    /// The kernel sent a reply that could not be parsed.
    case malformedKernelReply(String)

    /// One line that says what went wrong.
    public var description: String {
        switch self {
        case .invalidAddress(let text, let reason): "invalid address \(Self.quoted(text)): \(reason)"
        case .invalidHostName(let text, let reason): "invalid host name \(Self.quoted(text)): \(reason)"
        case .invalidURL(let text, let reason): "invalid URL \(Self.quoted(text)): \(reason)"
        case .invalidNAT64Prefix(let text, let reason): "invalid NAT64 prefix \(Self.quoted(text)): \(reason)"
        case .unknownZone(let zone): "unknown zone \(Self.quoted(zone)): no interface has that name or index"
        case .localAddressNotOwned(let address): "local address \(address) is not an address of this host"
        case .familyMismatch(let local, let remote): "local address \(local) and remote address \(remote) differ in family"
        case .invalidResolutionTimeout(let timeout):
            "invalid resolution timeout \(timeout): it must be above zero and at most a day"
        case .invalidTimeout(let timeout): "invalid timeout \(timeout): it must not be negative"
        case .invalidRetryPolicy(let reason): "invalid retry policy: \(reason)"
        case .timedOut(let timeout): "timed out after \(timeout)"
        case .networkNamespaceDeleted(let path): "network namespace \(path) was deleted"
        case .systemCallFailed(let call, let errno): "\(call) failed: \(Self.words(forErrno: errno))"
        case .malformedKernelReply(let what): "malformed kernel reply: \(what)"
        }
    }

    /// What an `errno` value means, in the C library's words and with its name: `Permission denied (EACCES)`.
    public static func words(forErrno number: Int32) -> String {
        SystemFailure.words(forErrno: number)
    }

    /// A POSIX call's failure, as this error.
    package init(_ failure: SystemFailure) {
        self = .systemCallFailed(call: failure.call, errno: failure.errno)
    }

    /// The user's text as it may appear in a one-line message: quoted, control characters escaped (so an
    /// embedded newline or NUL cannot break the line), and cut after 80 characters.
    static func quoted(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars.prefix(80) {
            escaped += scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return "'\(escaped)\(text.unicodeScalars.count > 80 ? "…" : "")'"
    }
}
