public import NetworkReachabilityCore
import NetworkReachabilityPOSIX
/// Finds the network's NAT64 prefixes the RFC 7050 way: ask DNS64 for `ipv4only.arpa`'s AAAA records and
/// locate the well-known IPv4 addresses 192.0.0.170 / 192.0.0.171 inside the answers.
public enum NAT64Discovery {
    /// The well-known IPv4 addresses of `ipv4only.arpa` (RFC 7050 §2.2).
    static let wellKnownIPv4 = Set([[192, 0, 0, 170], [192, 0, 0, 171]].compactMap { IPAddress(bytes: $0) })

    /// The name RFC 7050 resolves.
    static let wellKnownName = "ipv4only.arpa"

    // A thread of its own, not a Dispatch queue, so that the process sleeps once discovery is done.
    private static let lane = SerialLane(name: "dns64")
    private static let timeouts = DeadlineTimer(name: "dns64-timer")

    /// Resolves `ipv4only.arpa` (AAAA only) off the caller's thread and returns the prefixes found, in answer
    /// order; none when the network has no DNS64, the lookup fails, or no answer comes within `timeout`.
    public static func discoverPrefixes(timeout: Duration) async -> [NAT64Prefix] {
        await withCheckedContinuation { (continuation: CheckedContinuation<[NAT64Prefix], Never>) in
            discover(timeout: timeout) { continuation.resume(returning: $0) }
        }
    }

    /// Resolves `ipv4only.arpa` off the caller's thread and calls `completion` exactly once: with the prefixes
    /// found, or with none on failure or when `timeout` passes first.
    static func discover(timeout: Duration, completion: @escaping @Sendable ([NAT64Prefix]) -> Void) {
        let finished = Locked(false)
        let finish = { @Sendable (prefixes: [NAT64Prefix]) in
            let first = finished.withLock { done in
                defer { done = true }
                return !done
            }
            if first { completion(prefixes) }
        }
        let timer = timeouts.schedule(after: timeout) { finish([]) }
        lane.run {
            let found: [NAT64Prefix]
            switch SystemCall.resolve(wellKnownName, ipv6Only: true) {
            case .success(let answers): found = prefixes(in: answers)
            case .failure: found = []
            }
            timeouts.cancel(timer)
            finish(found)
        }
    }

    /// The prefixes the AAAA answers imply: for each, the first length (96, 64, 56, 48, 40, 32, as RFC 7050 §3
    /// orders them) at which a well-known IPv4 address sits where RFC 6052 embeds it.
    static func prefixes(in answers: [IPAddress]) -> [NAT64Prefix] {
        var found: [NAT64Prefix] = []
        for answer in answers where answer.family == .ipv6 {
            for length in [96, 64, 56, 48, 40, 32] {
                var bytes = answer.withoutZone.bytes
                for index in (length / 8)..<16 { bytes[index] = 0 }
                guard let base = IPAddress(bytes: bytes), let prefix = try? NAT64Prefix(address: base, length: length),
                    let embedded = prefix.extractIPv4(from: answer.withoutZone), wellKnownIPv4.contains(embedded)
                else { continue }
                if !found.contains(prefix) { found.append(prefix) }
                break
            }
        }
        return found
    }
}
