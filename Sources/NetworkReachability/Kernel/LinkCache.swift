import CNetlink
import Glibc

/// The links synchronous reads need, kept exact without polling: a socket subscribed to the kernel's link
/// notifications is drained, without blocking, before each answer. A read then costs one route lookup rather
/// than a route lookup and a link query (whose reply the kernel fills at length).
///
/// A link not seen yet is asked for once. An overflow (`ENOBUFS`, links changed by the hundred while nobody
/// read) empties the cache, so nothing stale survives it.
final class LinkCache: LinkSource, Sendable {
    private struct State {
        var subscription: NetlinkSocket?
        var links: [Int: LinkMessage] = [:]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    }

    // Guarded by its lock; the queries' lock is taken inside it, never the other way round.
    private let state = Locked(State())
    private let queries: KernelQueries
    private let namespace: NetworkNamespace?

    /// Makes a cache whose subscription opens, on first use, in `namespace` (the caller's when `nil`).
    init(queries: KernelQueries, namespace: NetworkNamespace?) {
        self.queries = queries
        self.namespace = namespace
    }

    func link(index: Int) throws(ReachabilityError) -> LinkMessage? {
        try state.withLock { (state: inout State) throws(ReachabilityError) -> LinkMessage? in
            try catchUp(&state)
            if let link = state.links[index] { return link }
            guard let link = try queries.link(index: index) else { return nil }
            state.links[index] = link
            return link
        }
    }

    /// Every link, from a dump (only the link-local target needs them all).
    func allLinks() throws(ReachabilityError) -> [LinkMessage] { try queries.links() }

    /// Closes the subscription; the next read opens a new one with an empty cache.
    func close() {
        state.withLock { state in
            state.subscription?.close()
            state.subscription = nil
            state.links = [:]
        }
    }

    /// Applies every link notification that has arrived since the last read.
    private func catchUp(_ state: inout State) throws(ReachabilityError) {
        if state.subscription == nil {
            state.subscription = try NetlinkSocket(groups: cnl_link_group_mask(), nonBlocking: true, namespace: namespace)
            state.links = [:]
        }
        guard let subscription = state.subscription else { return }
        while true {
            do {
                guard case .completed(let datagram) = try subscription.receive(into: &state.buffer) else { return }
                guard datagram.senderPortID == 0 else { continue }
                guard !datagram.isTruncated else {
                    state.links = [:]
                    continue
                }
                for message in NetlinkMessage.split(state.buffer[0..<datagram.count]).messages {
                    guard case .link(let link) = KernelMessage(message) else { continue }
                    state.links[link.index] = link.isDeletion ? nil : link
                }
            } catch .systemCallFailed(_, let code) where code == ENOBUFS {
                state.links = [:]
            }
        }
    }
}
