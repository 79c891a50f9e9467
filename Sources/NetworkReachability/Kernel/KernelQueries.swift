import CNetlink
import Glibc

/// Request/response exchanges with the kernel over one reused socket, serialized by a lock.
///
/// The socket opens on the first query and closes with ``close()`` or when the object is released.
final class KernelQueries: RouteQuerying {
    private struct State {
        var socket: NetlinkSocket?
        var sequence: UInt32 = 0
        var exchanges = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        /// The requests of the current exchange, encoded; kept to reuse its capacity.
        var batch: [UInt8] = []
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
        try lookupRoutes([Self.routeRequest(to: destination, from: source, interfaceIndex: interfaceIndex)])[0]
    }

    /// Asks for the routes to several destinations in one `sendmsg`: one round trip, answers in order.
    func lookupRoutes(to destinations: [IPAddress]) throws(ReachabilityError) -> [RouteAnswer] {
        try lookupRoutes(destinations.map { Self.routeRequest(to: $0, from: nil, interfaceIndex: nil) })
    }

    private func lookupRoutes(_ requests: [Request]) throws(ReachabilityError) -> [RouteAnswer] {
        var routes = [RouteMessage?](repeating: nil, count: requests.count)
        let replies = try exchange(requests) { position, message in routes[position] = RouteMessage(message) }
        var answers: [RouteAnswer] = []
        for (reply, route) in zip(replies, routes) {
            switch reply {
            case .failed(let code): answers.append(.noRoute(errno: code))
            case .completed:
                guard let route else { throw .malformedKernelReply("route lookup answer") }
                answers.append(.route(route))
            }
        }
        return answers
    }

    private static func routeRequest(to destination: IPAddress, from source: IPAddress?, interfaceIndex: Int?) -> Request {
        let family = destination.family == .ipv4 ? UInt8(AF_INET) : UInt8(AF_INET6)
        let fullLength = UInt8(destination.bytes.count * 8)
        return Request { sequence in
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
    }

    /// The link with `index`, or `nil` when there is none.
    func link(index: Int) throws(ReachabilityError) -> LinkMessage? {
        try singleLink(Self.linkRequest(index: index))
    }

    /// The index of the link called `name`, or `nil` when there is none.
    func linkIndex(named name: String) throws(ReachabilityError) -> Int? {
        let request = Request { sequence in
            var request = NetlinkRequest(type: UInt16(RTM_GETLINK), sequence: sequence, familyHeader: Self.linkHeader(index: 0))
            request.appendAttribute(UInt16(IFLA_IFNAME), Array(name.utf8) + [0])
            return request.encoded
        }
        return try singleLink(request)?.index
    }

    /// Every link (`RTM_GETLINK` dump).
    func links() throws(ReachabilityError) -> [LinkMessage] {
        try dump(type: UInt16(RTM_GETLINK), header: Self.linkHeader(index: 0), LinkMessage.init)
    }

    /// Every address of every link (`RTM_GETADDR` dump).
    func addresses() throws(ReachabilityError) -> [AddressMessage] {
        try dump(type: UInt16(RTM_GETADDR), header: [UInt8](repeating: 0, count: 8), AddressMessage.init)
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

    /// How one request of a batch ended; its messages went to the exchange's handler as they came.
    private enum Reply {
        case completed
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

    private func singleLink(_ request: Request) throws(ReachabilityError) -> LinkMessage? {
        var link: LinkMessage?
        let reply = try exchange([request]) { _, message in link = LinkMessage(message) }[0]
        try Self.checkLinkReply(reply)
        return link
    }

    /// A link that does not exist is an answer (`nil`); any other error is not.
    private static func checkLinkReply(_ reply: Reply) throws(ReachabilityError) {
        if case .failed(let code) = reply, code != ENODEV { throw .systemCallFailed(call: "RTM_GETLINK", errno: code) }
    }

    /// A dump, parsed message by message as datagrams arrive: only the parsed values are kept, never the
    /// kernel's bytes, so a dump of any size needs one receive buffer.
    private func dump<Value>(
        type: UInt16, header: [UInt8], _ parse: (NetlinkMessage) -> Value?
    ) throws(ReachabilityError) -> [Value] {
        // A dump that raced a change is marked NLM_F_DUMP_INTR; ask again, a few times at most.
        for _ in 0..<4 {
            let request = Request(isDump: true) { sequence in
                NetlinkRequest(type: type, flags: UInt16(NLM_F_DUMP), sequence: sequence, familyHeader: header).encoded
            }
            var values: [Value] = []
            var interrupted = false
            let reply = try exchange([request]) { _, message in
                if message.flags & UInt16(NLM_F_DUMP_INTR) != 0 { interrupted = true }
                if let value = parse(message) { values.append(value) }
            }[0]
            if case .failed(let code) = reply { throw .systemCallFailed(call: "netlink dump \(type)", errno: code) }
            if !interrupted { return values }
        }
        throw .malformedKernelReply("dump kept being interrupted by changes")
    }

    /// One request of a batch: how to encode it for a sequence number, and whether it is a dump.
    private struct Request {
        var isDump = false
        var encode: (UInt32) -> [UInt8]
    }

    /// Sends the requests in one `sendmsg` (the kernel handles each in turn and answers each), hands every
    /// answer message to `handle` with its request's position as it arrives, and says how each request ended.
    /// Messages are matched by sequence number; replies to older exchanges are skipped.
    private func exchange(
        _ requests: [Request], handle: (Int, NetlinkMessage) -> Void
    ) throws(ReachabilityError) -> [Reply] {
        try state.withLock { (state: inout State) throws(ReachabilityError) -> [Reply] in
            if state.socket == nil { state.socket = try NetlinkSocket(namespace: namespace) }
            guard let socket = state.socket else { throw .malformedKernelReply("no socket") }
            let first = state.sequence &+ 1
            state.sequence &+= UInt32(requests.count)
            state.batch.removeAll(keepingCapacity: true)
            for (offset, request) in requests.enumerated() {
                state.batch += request.encode(first &+ UInt32(offset))
            }
            try socket.send(state.batch)
            state.exchanges += 1
            var replies = [Reply?](repeating: nil, count: requests.count)
            var open = requests.count
            while open > 0 {
                guard case .completed(let datagram) = try socket.receive(into: &state.buffer) else { continue }
                guard datagram.senderPortID == 0 else { continue }
                guard !datagram.isTruncated else { throw .malformedKernelReply("datagram larger than the buffer") }
                _ = NetlinkMessage.walk(state.buffer[0..<datagram.count]) { message in
                    let position = Int(message.sequence &- first)
                    guard position >= 0, position < requests.count, replies[position] == nil else { return }
                    if let code = message.errorCode {
                        replies[position] = code == 0 ? .completed : .failed(-code)
                    } else if message.isDone {
                        replies[position] = .completed
                    } else {
                        handle(position, message)
                        if !requests[position].isDump { replies[position] = .completed }
                    }
                    if replies[position] != nil { open -= 1 }
                }
            }
            return replies.map { $0 ?? .completed }
        }
    }
}
