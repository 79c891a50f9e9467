import CNetlink
public import NetworkReachabilityCore
import NetworkReachabilityPOSIX
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Hears router advertisements for a while: the kernel keeps no copy of past ones, so a one-shot reader
/// subscribes to the ND options the kernel passes on, solicits advertisements, and listens.
public enum RouterAdvertisementListener {
    /// A thread of its own while it listens, not Dispatch's pool (see ``SerialLane``).
    private static let lane = SerialLane(name: "router-adverts")

    /// Sends a Router Solicitation on every up, non-loopback interface (where the process may open a raw
    /// ICMPv6 socket), then collects advertisements for `duration`, off the caller's thread.
    public static func listen(for duration: Duration) async -> [RouterAdvertisement] {
        await withCheckedContinuation { continuation in
            lane.run { continuation.resume(returning: (try? collect(for: duration)) ?? []) }
        }
    }

    private static func collect(for duration: Duration) throws(ReachabilityError) -> [RouterAdvertisement] {
        let socket = try NetlinkSocket(groups: cnl_nd_useropt_group_mask(), nonBlocking: true)
        defer { socket.close() }
        let queries = KernelQueries(namespace: nil)
        defer { queries.close() }
        for link in try queries.links() where link.isReadyToCarry && !link.isLoopback {
            SystemCall.sendRouterSolicitation(interfaceIndex: link.index)
        }
        let deadline = MonotonicClock.deadline(after: duration)
        var heard: [RouterAdvertisement] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let remaining = deadline - MonotonicClock.milliseconds()
            guard remaining > 0, try SystemCall.waitReadable(socket.descriptor, milliseconds: remaining) else { break }
            while case .completed(let datagram) = try socket.receive(into: &buffer) {
                guard datagram.senderPortID == 0, !datagram.isTruncated else { continue }
                heard += NetlinkMessage.split(buffer[0..<datagram.count]).messages.compactMap(NDUserOptionMessage.parse)
            }
        }
        return heard
    }
}
