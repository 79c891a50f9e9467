import CNetlink
import Glibc

/// A `NETLINK_ROUTE` socket. Owned by one user at a time; callers serialize access.
final class NetlinkSocket {
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
    private var isClosed = false

    /// Opens and binds a socket, inside `namespace` when one is given.
    ///
    /// - Parameters:
    ///   - groups: the legacy multicast group mask to subscribe to, 0 for a request socket.
    ///   - nonBlocking: `SOCK_NONBLOCK`, for sockets drained after `poll`.
    ///   - receiveBufferSize: `SO_RCVBUF` in bytes, when set.
    init(
        groups: UInt32 = 0, nonBlocking: Bool = false, receiveBufferSize: Int? = nil,
        namespace: NetworkNamespace? = nil
    ) throws(ReachabilityError) {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let open = { () throws(ReachabilityError) -> Int32 in
            try SystemCall.run("socket(AF_NETLINK)") { socket(AF_NETLINK, type, NETLINK_ROUTE) }
        }
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
        } catch {
            SystemCall.close(descriptor)
            throw error
        }
    }

    deinit { close() }

    /// Sends one request to the kernel.
    func send(_ bytes: [UInt8]) throws(ReachabilityError) {
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        try SystemCall.run("sendto(AF_NETLINK)") {
            bytes.withUnsafeBytes { buffer in
                withUnsafePointer(to: &kernel) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(descriptor, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                    }
                }
            }
        }
    }

    /// Receives one datagram into `buffer`; ``SystemCall/Outcome/wouldBlock`` on a drained non-blocking socket.
    ///
    /// Throws `ENOBUFS` as ``ReachabilityError/systemCallFailed(call:errno:)`` when the socket overflowed.
    func receive(into buffer: inout [UInt8]) throws(ReachabilityError) -> SystemCall.Outcome<Datagram> {
        var sender = sockaddr_nl()
        var flags: Int32 = 0
        let outcome = try SystemCall.runNonBlocking("recvmsg(AF_NETLINK)") { () -> Int in
            buffer.withUnsafeMutableBytes { raw in
                withUnsafeMutablePointer(to: &sender) { senderPointer in
                    var vector = iovec(iov_base: raw.baseAddress, iov_len: raw.count)
                    return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                        var header = msghdr()
                        header.msg_name = UnsafeMutableRawPointer(senderPointer)
                        header.msg_namelen = socklen_t(MemoryLayout<sockaddr_nl>.size)
                        header.msg_iov = vectorPointer
                        header.msg_iovlen = 1
                        let count = recvmsg(descriptor, &header, 0)
                        flags = header.msg_flags
                        return count
                    }
                }
            }
        }
        switch outcome {
        case .wouldBlock: return .wouldBlock
        case .completed(let count):
            return .completed(
                Datagram(
                    count: count, senderPortID: sender.nl_pid, isTruncated: flags & Int32(MSG_TRUNC) != 0))
        }
    }

    /// Closes the descriptor; later calls fail with `EBADF`-free no-ops.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        SystemCall.close(descriptor)
    }
}
