import CNetlink
import Glibc

/// Request/response exchanges with the kernel over one reused socket, serialized by a lock.
///
/// The socket opens on the first query and closes with ``close()`` or when the object is released.
final class KernelQueries: Sendable {
    /// The kernel's answer to a route lookup.
    enum RouteAnswer: Sendable, Equatable {
        /// The route the kernel would use.
        case route(RouteMessage)
        /// The lookup failed with this errno (`ENETUNREACH`, `EHOSTUNREACH`, `EACCES`, `EINVAL`…).
        case noRoute(errno: Int32)
    }

    private struct State {
        var socket: NetlinkSocket?
        var sequence: UInt32 = 0
        var exchanges = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    }

    // Guarded by its lock: one exchange at a time.
    private let state = Locked(State())
    private let namespace: NetworkNamespace?

    /// Makes a client whose socket opens in `namespace` (the caller's when `nil`).
    init(namespace: NetworkNamespace?) {
        self.namespace = namespace
    }

    // MARK: - Queries

    /// Asks the kernel which route a packet to `destination` would take (`ip route get`).
    func lookupRoute(
        to destination: IPAddress, from source: IPAddress? = nil, interfaceIndex: Int? = nil
    ) throws(ReachabilityError) -> RouteAnswer {
        try lookupRoute(to: destination, from: source, interfaceIndex: interfaceIndex, alsoLink: nil).route
    }

    /// Asks for the route and, in the same `sendmsg`, for the link `likelyLink` (the interface the route
    /// left through last time): when the guess holds, route and link cost one round trip.
    func lookupRoute(
        to destination: IPAddress, from source: IPAddress?, interfaceIndex: Int?, alsoLink likelyLink: Int?
    ) throws(ReachabilityError) -> (route: RouteAnswer, link: LinkMessage?) {
        let family = destination.family == .ipv4 ? UInt8(AF_INET) : UInt8(AF_INET6)
        let fullLength = UInt8(destination.bytes.count * 8)
        var requests: [Request] = [
            Request { sequence in
                var header: [UInt8] = [family, fullLength, source == nil ? 0 : fullLength, 0, 0, 0, 0, 0]
                header.appendNative(UInt32(0))  // rtm_flags
                var request = NetlinkRequest(type: UInt16(RTM_GETROUTE), sequence: sequence, familyHeader: header)
                request.appendAttribute(UInt16(RTA_DST.rawValue), destination.bytes)
                if let source { request.appendAttribute(UInt16(RTA_SRC.rawValue), source.bytes) }
                if let interfaceIndex {
                    request.appendAttribute(UInt16(RTA_OIF.rawValue), uint32: UInt32(interfaceIndex))
                }
                return request.encoded
            }
        ]
        if let likelyLink { requests.append(Self.linkRequest(index: likelyLink)) }
        let replies = try exchange(requests)
        let route: RouteAnswer
        switch replies[0] {
        case .failed(let code): route = .noRoute(errno: code)
        case .messages(let messages):
            guard let message = messages.lazy.compactMap(RouteMessage.init).first else {
                throw .malformedKernelReply("route lookup answer")
            }
            route = .route(message)
        }
        return (route, replies.count > 1 ? try Self.link(from: replies[1]) : nil)
    }

    /// The link with `index`, or `nil` when there is none.
    func link(index: Int) throws(ReachabilityError) -> LinkMessage? {
        try Self.link(from: exchange([Self.linkRequest(index: index)])[0])
    }

    /// The index of the link called `name`, or `nil` when there is none.
    func linkIndex(named name: String) throws(ReachabilityError) -> Int? {
        let request = Request { sequence in
            var request = NetlinkRequest(type: UInt16(RTM_GETLINK), sequence: sequence, familyHeader: Self.linkHeader(index: 0))
            request.appendAttribute(UInt16(IFLA_IFNAME), Array(name.utf8) + [0])
            return request.encoded
        }
        return try Self.link(from: exchange([request])[0])?.index
    }

    /// Every link (`RTM_GETLINK` dump).
    func links() throws(ReachabilityError) -> [LinkMessage] {
        try dump(type: UInt16(RTM_GETLINK), header: Self.linkHeader(index: 0)).compactMap(LinkMessage.init)
    }

    /// Every address of every link (`RTM_GETADDR` dump).
    func addresses() throws(ReachabilityError) -> [AddressMessage] {
        try dump(type: UInt16(RTM_GETADDR), header: [UInt8](repeating: 0, count: 8)).compactMap(AddressMessage.init)
    }

    /// How many `sendmsg` round trips this client has made: each batch of requests counts once.
    var exchangeCount: Int { state.withLock { $0.exchanges } }

    /// Closes the socket; the next query opens a new one.
    func close() {
        state.withLock {
            $0.socket?.close()
            $0.socket = nil
        }
    }

    // MARK: - Exchanges

    private enum Reply {
        case messages([NetlinkMessage])
        case failed(Int32)
    }

    private static func linkHeader(index: Int32) -> [UInt8] {
        var header: [UInt8] = [UInt8(AF_UNSPEC), 0, 0, 0]
        header.appendNative(index)
        header.appendNative(UInt32(0))  // ifi_flags
        header.appendNative(UInt32(0))  // ifi_change
        return header
    }

    private static func linkRequest(index: Int) -> Request {
        Request { sequence in
            var request = NetlinkRequest(
                type: UInt16(RTM_GETLINK), sequence: sequence, familyHeader: linkHeader(index: Int32(truncatingIfNeeded: index)))
            // Counters are most of a link reply and never read here.
            request.appendAttribute(UInt16(IFLA_EXT_MASK), uint32: UInt32(RTEXT_FILTER_SKIP_STATS))
            return request.encoded
        }
    }

    private static func link(from reply: Reply) throws(ReachabilityError) -> LinkMessage? {
        switch reply {
        case .failed(let code) where code == ENODEV: return nil
        case .failed(let code): throw .systemCallFailed(call: "RTM_GETLINK", errno: code)
        case .messages(let messages): return messages.lazy.compactMap(LinkMessage.init).first
        }
    }

    private func dump(type: UInt16, header: [UInt8]) throws(ReachabilityError) -> [NetlinkMessage] {
        // A dump that raced a change is marked NLM_F_DUMP_INTR; ask again, a few times at most.
        for _ in 0..<4 {
            let request = Request(isDump: true) { sequence in
                NetlinkRequest(type: type, flags: UInt16(NLM_F_DUMP), sequence: sequence, familyHeader: header).encoded
            }
            switch try exchange([request])[0] {
            case .failed(let code): throw .systemCallFailed(call: "netlink dump \(type)", errno: code)
            case .messages(let messages):
                if !messages.contains(where: { $0.flags & UInt16(NLM_F_DUMP_INTR) != 0 }) { return messages }
            }
        }
        throw .malformedKernelReply("dump kept being interrupted by changes")
    }

    /// One request of a batch: how to encode it for a sequence number, and whether it is a dump.
    private struct Request {
        var isDump = false
        var encode: (UInt32) -> [UInt8]
    }

    /// Sends the requests in one `sendmsg` (the kernel handles each in turn and answers each) and collects
    /// every answer, matched by sequence number; replies to older exchanges are skipped.
    private func exchange(_ requests: [Request]) throws(ReachabilityError) -> [Reply] {
        try state.withLock { (state: inout State) throws(ReachabilityError) -> [Reply] in
            if state.socket == nil { state.socket = try NetlinkSocket(namespace: namespace) }
            guard let socket = state.socket else { throw .malformedKernelReply("no socket") }
            let first = state.sequence &+ 1
            state.sequence &+= UInt32(requests.count)
            var batch: [UInt8] = []
            for (offset, request) in requests.enumerated() {
                batch += request.encode(first &+ UInt32(offset))
            }
            try socket.send(batch)
            state.exchanges += 1
            var collected = [[NetlinkMessage]](repeating: [], count: requests.count)
            var replies = [Reply?](repeating: nil, count: requests.count)
            var open = requests.count
            while open > 0 {
                guard case .completed(let datagram) = try socket.receive(into: &state.buffer) else { continue }
                guard datagram.senderPortID == 0 else { continue }
                guard !datagram.isTruncated else { throw .malformedKernelReply("datagram larger than the buffer") }
                for message in NetlinkMessage.split(state.buffer[0..<datagram.count]).messages {
                    let position = Int(message.sequence &- first)
                    guard position >= 0, position < requests.count, replies[position] == nil else { continue }
                    if let code = message.errorCode {
                        replies[position] = code == 0 ? .messages(collected[position]) : .failed(-code)
                    } else if message.isDone {
                        replies[position] = .messages(collected[position])
                    } else {
                        collected[position].append(message)
                        if !requests[position].isDump { replies[position] = .messages(collected[position]) }
                    }
                    if replies[position] != nil { open -= 1 }
                }
            }
            return replies.map { $0 ?? .messages([]) }
        }
    }
}
