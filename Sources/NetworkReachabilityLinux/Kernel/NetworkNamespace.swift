import CNetlink
package import NetworkReachabilityCore
import NetworkReachabilityPOSIX
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A network namespace to open sockets in, named by a path such as `/run/netns/NAME`.
///
/// A netlink socket belongs to the namespace of the thread that created it; this moves the calling
/// thread into the namespace just for the `socket()` call and back, as `ip netns exec` users expect.
package struct NetworkNamespace: Sendable, Hashable {
    /// The namespace file, e.g. `/run/netns/test1`.
    package let path: String

    /// Names a namespace by its file.
    package init(path: String) { self.path = path }

    /// Names a namespace made with `ip netns add NAME`.
    package init(named name: String) { self.path = "/run/netns/\(name)" }

    /// The named namespace (a file under `/run/netns`, as `ip netns add` makes) the calling thread is in, found
    /// as `ip netns identify` does; `nil` for an unnamed one, such as the host's.
    package static func current() -> NetworkNamespace? {
        guard let own = SystemCall.fileIdentity("/proc/thread-self/ns/net") else { return nil }
        return (Directory.names("/run/netns") ?? []).lazy
            .map { NetworkNamespace(named: $0) }
            .first { SystemCall.fileIdentity($0.path) == own }
    }

    /// Runs `body` with the calling thread inside the namespace.
    package func perform<Result>(_ body: () throws(ReachabilityError) -> Result) throws(ReachabilityError) -> Result {
        let original = try SystemCall.run("open(/proc/thread-self/ns/net)") {
            open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
        }
        defer { SystemCall.close(original) }
        let target = try SystemCall.run("open(\(path))") { path.withCString { open($0, O_RDONLY | O_CLOEXEC) } }
        defer { SystemCall.close(target) }
        try SystemCall.run("setns(\(path))") { cnl_setns_net(target) }
        defer {
            // Failing to return would leave the thread in the wrong namespace for good.
            let back = cnl_setns_net(original)
            precondition(
                back == 0, "setns back to the original network namespace failed: \(ReachabilityError.words(forErrno: errno))")
        }
        return try body()
    }
}
