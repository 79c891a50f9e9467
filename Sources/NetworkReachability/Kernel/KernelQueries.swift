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
        let family = destination.family == .ipv4 ? UInt8(AF_INET) : UInt8(AF_INET6)
        let fullLength = UInt8(destination.bytes.count * 8)
        let reply = try exchange(dump: false) { sequence in
            var header: [UInt8] = [family, fullLength, source == nil ? 0 : fullLength, 0, 0, 0, 0, 0]
            header.appendNative(UInt32(0))  // rtm_flags
            var request = NetlinkRequest(type: UInt16(RTM_GETROUTE), sequence: sequence, familyHeader: header)
            request.appendAttribute(UInt16(RTA_DST.rawValue), destination.bytes)
            if let source { request.appendAttribute(UInt16(RTA_SRC.rawValue), source.bytes) }
            if let interfaceIndex { request.appendAttribute(UInt16(RTA_OIF.rawValue), uint32: UInt32(interfaceIndex)) }
            return request.encoded
        }
        switch reply {
        case .failed(let code): return .noRoute(errno: code)
        case .messages(let messages):
            guard let route = messages.lazy.compactMap(RouteMessage.init).first else {
                throw .malformedKernelReply("route lookup answer")
            }
            return .route(route)
        }
    }

    /// The link with `index`, or `nil` when there is none.
    func link(index: Int) throws(ReachabilityError) -> LinkMessage? {
        try singleLink { request in _ = request } header: { Self.linkHeader(index: Int32(truncatingIfNeeded: index)) }
    }

    /// The index of the link called `name`, or `nil` when there is none.
    func linkIndex(named name: String) throws(ReachabilityError) -> Int? {
        try singleLink { request in
            request.appendAttribute(UInt16(IFLA_IFNAME), Array(name.utf8) + [0])
        } header: { Self.linkHeader(index: 0) }?.index
    }

    /// Every link (`RTM_GETLINK` dump).
    func links() throws(ReachabilityError) -> [LinkMessage] {
        try dump(type: UInt16(RTM_GETLINK), header: Self.linkHeader(index: 0)).compactMap(LinkMessage.init)
    }

    /// Every address of every link (`RTM_GETADDR` dump).
    func addresses() throws(ReachabilityError) -> [AddressMessage] {
        try dump(type: UInt16(RTM_GETADDR), header: [UInt8](repeating: 0, count: 8)).compactMap(AddressMessage.init)
    }

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

    private func singleLink(
        _ addAttributes: (inout NetlinkRequest) -> Void, header: () -> [UInt8]
    ) throws(ReachabilityError) -> LinkMessage? {
        let reply = try exchange(dump: false) { sequence in
            var request = NetlinkRequest(type: UInt16(RTM_GETLINK), sequence: sequence, familyHeader: header())
            addAttributes(&request)
            return request.encoded
        }
        switch reply {
        case .failed(let code) where code == ENODEV: return nil
        case .failed(let code): throw .systemCallFailed(call: "RTM_GETLINK", errno: code)
        case .messages(let messages): return messages.lazy.compactMap(LinkMessage.init).first
        }
    }

    private func dump(type: UInt16, header: [UInt8]) throws(ReachabilityError) -> [NetlinkMessage] {
        // A dump that raced a change is marked NLM_F_DUMP_INTR; ask again, a few times at most.
        for _ in 0..<4 {
            let reply = try exchange(dump: true) { sequence in
                NetlinkRequest(type: type, flags: UInt16(NLM_F_DUMP), sequence: sequence, familyHeader: header).encoded
            }
            switch reply {
            case .failed(let code): throw .systemCallFailed(call: "netlink dump \(type)", errno: code)
            case .messages(let messages):
                if !messages.contains(where: { $0.flags & UInt16(NLM_F_DUMP_INTR) != 0 }) { return messages }
            }
        }
        throw .malformedKernelReply("dump kept being interrupted by changes")
    }

    /// Sends one request and collects the kernel's answer to it; replies to older requests are skipped.
    private func exchange(dump: Bool, _ build: (UInt32) -> [UInt8]) throws(ReachabilityError) -> Reply {
        try state.withLock { (state: inout State) throws(ReachabilityError) -> Reply in
            if state.socket == nil { state.socket = try NetlinkSocket(namespace: namespace) }
            guard let socket = state.socket else { throw .malformedKernelReply("no socket") }
            state.sequence &+= 1
            let sequence = state.sequence
            try socket.send(build(sequence))
            var collected: [NetlinkMessage] = []
            while true {
                guard case .completed(let datagram) = try socket.receive(into: &state.buffer) else { continue }
                guard datagram.senderPortID == 0 else { continue }
                guard !datagram.isTruncated else { throw .malformedKernelReply("datagram larger than the buffer") }
                let (messages, _) = NetlinkMessage.split(state.buffer[0..<datagram.count])
                for message in messages where message.sequence == sequence {
                    if let code = message.errorCode {
                        return code == 0 ? .messages(collected) : .failed(-code)
                    }
                    if message.isDone { return .messages(collected) }
                    collected.append(message)
                    if !dump { return .messages(collected) }
                }
            }
        }
    }
}
