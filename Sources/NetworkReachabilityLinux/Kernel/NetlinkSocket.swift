import NetworkReachabilityCore
import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A netlink socket: `NETLINK_ROUTE`, or `NETLINK_SOCK_DIAG` for the quality reader. Owned by one user at a time, which serializes access: the queries' lock, or the
/// monitor's thread for a subscription's. That owner, not the compiler, makes it safe to hand on (`@unchecked`).
final class NetlinkSocket: @unchecked Sendable {
    /// One received datagram's metadata.
    struct Datagram {
        /// How many bytes were written to the buffer.
        var count: Int
        /// The sender's port id: 0 for the kernel, anything else for a user-space process.
        var senderPortID: UInt32
        /// The datagram was larger than the buffer and was cut (`MSG_TRUNC`).
        var isTruncated: Bool
    }

    let descriptor: Int32
    /// The port id the kernel gave the socket when it was bound: replies to its requests carry it.
    let portID: UInt32
    private var isClosed = false

    /// Opens and binds a socket, inside `namespace` when one is given.
    ///
    /// - Parameters:
    ///   - groups: the legacy multicast group mask to subscribe to, 0 for a request socket.
    ///   - nonBlocking: `SOCK_NONBLOCK`, for sockets drained after `poll`.
    ///   - receiveBufferSize: `SO_RCVBUF` in bytes, when set.
    ///   - receiveTimeout: `SO_RCVTIMEO` in seconds, when set: a receive that waits longer would block.
    ///   - strictChecking: `NETLINK_GET_STRICT_CHK`: the kernel checks requests strictly, and filters dumps by
    ///     the header's fields (a route dump by table).
    ///   - family: the netlink protocol, `NETLINK_ROUTE` unless given.
    init(
        groups: UInt32 = 0, nonBlocking: Bool = false, receiveBufferSize: Int? = nil, receiveTimeout: Int? = nil,
        strictChecking: Bool = false, namespace: NetworkNamespace? = nil, family: Int32 = NETLINK_ROUTE
    ) throws(ReachabilityError) {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let open = { () throws(ReachabilityError) -> Int32 in
            try SystemCall.run("socket(AF_NETLINK)") { socket(AF_NETLINK, type, family) }
        }
        // Bound to a local until the socket is ready: the set-up closures must not capture a half-made self.
        let descriptor: Int32
        if let namespace {
            descriptor = try namespace.perform(open)
        } else {
            descriptor = try open()
        }
        do {
            if var size = receiveBufferSize.map(Int32.init) {
                try SystemCall.run("setsockopt(SO_RCVBUF)") {
                    setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
                }
            }
            if let receiveTimeout {
                var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
                try SystemCall.run("setsockopt(SO_RCVTIMEO)") {
                    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                }
            }
            if strictChecking {
                var on: Int32 = 1
                try SystemCall.run("setsockopt(NETLINK_GET_STRICT_CHK)") {
                    setsockopt(descriptor, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &on, socklen_t(MemoryLayout<Int32>.size))
                }
            }
            var address = sockaddr_nl()
            address.nl_family = sa_family_t(AF_NETLINK)
            address.nl_groups = groups
            try SystemCall.run("bind(AF_NETLINK)") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                    }
                }
            }
            var length = socklen_t(MemoryLayout<sockaddr_nl>.size)
            try SystemCall.run("getsockname(AF_NETLINK)") {
                withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
                }
            }
            portID = address.nl_pid
        } catch {
            SystemCall.close(descriptor)
            throw error
        }
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Sends one request to the kernel: an unconnected netlink socket's default destination.
    ///
    /// `send`, not `sendto` with the kernel's address: the address costs a copy into the kernel on every request.
    func send(_ bytes: [UInt8]) throws(ReachabilityError) {
        try SystemCall.run("send(AF_NETLINK)") {
            bytes.withUnsafeBytes { buffer in libcSend(descriptor, buffer.baseAddress, buffer.count, 0) }
        }
    }

    /// Receives one datagram into `buffer`; ``SystemCall/Outcome/wouldBlock`` on a drained non-blocking socket,
    /// or on any socket with `waiting` false (`MSG_DONTWAIT`).
    ///
    /// Throws `ENOBUFS` as ``ReachabilityError/systemCallFailed(call:errno:)`` when the socket overflowed.
    func receive(into buffer: inout [UInt8], waiting: Bool = true) throws(ReachabilityError) -> SystemCall.Outcome<Datagram> {
        // Taken as a user-space sender unless the kernel writes the address.
        var sender = sockaddr_nl()
        sender.nl_pid = .max
        var senderLength = socklen_t(MemoryLayout<sockaddr_nl>.size)
        let flags = Int32(MSG_TRUNC) | (waiting ? 0 : Int32(MSG_DONTWAIT))
        // `recvfrom`, not `recvmsg`: a message header and its vector cost two more copies into the kernel on
        // every receive, about 0.3 µs here. With `MSG_TRUNC`, netlink returns the datagram's whole length.
        let outcome = try SystemCall.runNonBlocking("recvfrom(AF_NETLINK)") { () -> Int in
            buffer.withUnsafeMutableBytes { raw in
                withUnsafeMutablePointer(to: &sender) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(descriptor, raw.baseAddress, raw.count, flags, $0, &senderLength)
                    }
                }
            }
        }
        switch outcome {
        case .wouldBlock: return .wouldBlock
        case .completed(let length):
            return .completed(
                Datagram(count: min(length, buffer.count), senderPortID: sender.nl_pid, isTruncated: length > buffer.count))
        }
    }

    /// What one receive of queued notifications brought (see ``receiveQueued(into:)``).
    enum QueuedDatagram {
        /// A datagram from the kernel: its first `count` bytes are in the buffer.
        case kernel(count: Int)
        /// A datagram some user-space process sent: to be dropped.
        case foreign
        /// A datagram cut to the buffer's size (`MSG_TRUNC`): what it said is lost.
        case truncated
        /// The socket overflowed (`ENOBUFS`): notifications were lost.
        case overflowed
    }

    /// Receives the next datagram already queued, without waiting; `nil` once the queue is empty.
    ///
    /// Every reader of notifications must tell the same cases apart, so they are told here: a datagram from the
    /// kernel, one from anyone else, one cut short, and an overflow. Other failures are thrown.
    func receiveQueued(into buffer: inout [UInt8]) throws(ReachabilityError) -> QueuedDatagram? {
        do {
            guard case .completed(let datagram) = try receive(into: &buffer, waiting: false) else { return nil }
            guard datagram.senderPortID == 0 else { return .foreign }
            return datagram.isTruncated ? .truncated : .kernel(count: datagram.count)
        } catch .systemCallFailed(_, let code) where code == ENOBUFS {
            return .overflowed
        }
    }

    /// Closes the descriptor; later calls fail with `EBADF`-free no-ops.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        SystemCall.close(descriptor)
    }
}
