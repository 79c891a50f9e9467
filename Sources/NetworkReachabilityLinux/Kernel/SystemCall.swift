import CNetlink
package import NetworkReachabilityCore
package import Synchronization
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The one seam through which the package makes system calls.
///
/// Each call reads `errno` at once, retries `EINTR`, reports would-block as a value where the caller
/// asks for it, and throws ``ReachabilityError/systemCallFailed(call:errno:)`` naming the call.
package enum SystemCall {
    /// What a non-blocking call did.
    package enum Outcome<Value> {
        case completed(Value)
        case wouldBlock
    }

    /// Runs a call that returns -1 and sets `errno` on failure, retrying `EINTR`.
    @discardableResult
    package static func run<Result: BinaryInteger>(_ name: String, _ body: () -> Result) throws(ReachabilityError) -> Result {
        while true {
            let result = body()
            if result >= 0 { return result }
            let error = errno
            if error == EINTR { continue }
            throw .systemCallFailed(call: name, errno: error)
        }
    }

    /// Like ``run(_:_:)``, but `EAGAIN`/`EWOULDBLOCK` come back as ``Outcome/wouldBlock``.
    package static func runNonBlocking<Result: BinaryInteger>(
        _ name: String, _ body: () -> Result
    ) throws(ReachabilityError) -> Outcome<Result> {
        while true {
            let result = body()
            if result >= 0 { return .completed(result) }
            let error = errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK { return .wouldBlock }
            throw .systemCallFailed(call: name, errno: error)
        }
    }

    /// Closes a descriptor; a failed close is not retried (Linux releases the descriptor anyway). A negative
    /// descriptor, one that failed to open, is skipped.
    ///
    /// A close the kernel refuses with `EBADF` means a descriptor was closed twice: had another thread opened a
    /// socket in between, that socket would have been closed under it. Such closes are counted for tests.
    package static func close(_ descriptor: Int32) {
        guard descriptor >= 0 else { return }
        if libcClose(descriptor) != 0, errno == EBADF { closesOfUnopenedDescriptors.add(1, ordering: .relaxed) }
    }

    /// How many closes named a descriptor that was not open: zero unless a close is repeated.
    package static let closesOfUnopenedDescriptors = Atomic<Int>(0)

    /// Reads what a non-blocking descriptor holds into `buffer`: the byte count, or `nil` once it would block,
    /// is at its end, or fails.
    package static func readAvailable(_ descriptor: Int32, into buffer: inout [UInt8]) -> Int? {
        let outcome = try? runNonBlocking("read") { buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) } }
        guard case .completed(let count)? = outcome, count > 0 else { return nil }
        return count
    }

    /// Adds one to an eventfd's counter, waking whoever polls it; a full counter already wakes them.
    package static func signalEvent(_ descriptor: Int32) {
        var one: UInt64 = 1
        _ = try? runNonBlocking("write(eventfd)") { write(descriptor, &one, 8) }
    }

    /// Returns once no routing change holds the kernel's RTNL lock (see `cnl_await_routing_lock`).
    static func awaitRoutingLock(_ descriptor: Int32) {
        _ = try? run("ioctl(SIOCGIFCONF)") { cnl_await_routing_lock(descriptor) }
    }

    /// Resets an eventfd's counter after a wake-up.
    static func consumeEvent(_ descriptor: Int32) {
        var value: UInt64 = 0
        _ = try? runNonBlocking("read(eventfd)") { read(descriptor, &value, 8) }
    }

    /// A non-blocking, close-on-exec eventfd that wakes a `poll`; -1 when none can be had.
    package static func wakeDescriptor() -> Int32 { cnl_wake_eventfd() }

    /// A non-blocking, close-on-exec inotify descriptor; -1 when none can be had.
    package static func inotifyDescriptor() -> Int32 { cnl_inotify_open() }

    /// The inotify events of a file written, created, moved, deleted or changed in its attributes.
    package static var inotifyChangeMask: UInt32 { cnl_inotify_change_mask() }

    /// Watches `path` on an inotify descriptor; `nil` when it cannot be watched (it does not exist).
    package static func addWatch(_ inotify: Int32, path: String, mask: UInt32) -> Int32? {
        try? run("inotify_add_watch(\(path))") { inotify_add_watch(inotify, path, mask) }
    }

    /// The device and inode of the file at `path` (links followed), which name a namespace; `nil` if absent.
    static func fileIdentity(_ path: String) -> [UInt64]? {
        var info = stat()
        guard (try? run("stat(\(path))") { stat(path, &info) }) != nil else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    /// Resolves `name` with `getaddrinfo` (so /etc/hosts, nsswitch and the system's DNS apply). Blocks: call it
    /// only from the resolver's pool. Internationalized names are encoded by glibc (`AI_IDN`, in UTF-8).
    /// With `ipv6Only`, only AAAA answers come back (`AF_INET6`, no `AI_V4MAPPED`).
    static func resolve(_ name: String, ipv6Only: Bool = false) -> Result<[IPAddress], ResolutionFailure> {
        var hints = addrinfo()
        hints.ai_family = ipv6Only ? AF_INET6 : AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)  // one entry per address, not one per socket type
        var list: UnsafeMutablePointer<addrinfo>?
        let code = cnl_getaddrinfo_utf8(name, &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard code == 0 else {
            let message =
                code == EAI_SYSTEM
                ? "system error: " + ReachabilityError.words(forErrno: errno) : String(cString: gai_strerror(code))
            return .failure(ResolutionFailure(message: message, isNoAddress: code == cnl_eai_nodata()))
        }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr.flatMap(Self.address(from:)), !addresses.contains(address) {
                addresses.append(address)
            }
            entry = current.pointee.ai_next
        }
        return .success(addresses)
    }

    private static func address(from socketAddress: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { IPAddress(networkOrder: $0) }
            }
        case AF_INET6:
            return socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                let scope = pointer.pointee.sin6_scope_id
                return withUnsafeBytes(of: pointer.pointee.sin6_addr) {
                    IPAddress(networkOrder: $0, zone: scope == 0 ? nil : String(scope))
                }
            }
        default:
            return nil
        }
    }

    /// Sends an ICMPv6 Router Solicitation to ff02::2 out of `interfaceIndex`; best effort (it needs a raw
    /// socket, so CAP_NET_RAW), silent on failure.
    static func sendRouterSolicitation(interfaceIndex: Int) {
        let descriptor = socket(AF_INET6, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Int32(IPPROTO_ICMPV6))
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var hops: Int32 = 255  // RFC 4861 §6.1.1: receivers drop solicitations with another hop limit
        var index = UInt32(interfaceIndex)
        _ = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_MULTICAST_HOPS, &hops, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_MULTICAST_IF, &index, socklen_t(MemoryLayout<UInt32>.size))
        var destination = sockaddr_in6()
        destination.sin6_family = sa_family_t(AF_INET6)
        withUnsafeMutableBytes(of: &destination.sin6_addr) { bytes in
            for (offset, byte) in [0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02].enumerated() {
                bytes[offset] = UInt8(byte)
            }
        }
        destination.sin6_scope_id = UInt32(interfaceIndex)
        let solicitation: [UInt8] = [133, 0, 0, 0, 0, 0, 0, 0]  // type, code, checksum (kernel fills), reserved
        _ = solicitation.withUnsafeBytes { message in
            withUnsafePointer(to: &destination) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, message.baseAddress, message.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }

    /// Blocks until `descriptor` is readable or `milliseconds` pass; returns whether it is readable.
    static func waitReadable(_ descriptor: Int32, milliseconds: Int) throws(ReachabilityError) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return try run("poll") { poll(&entry, 1, Int32(clamping: milliseconds)) } > 0
    }

    /// A non-blocking stream socket connected to the UNIX socket at `path`, or `nil` when nothing listens there (the
    /// file is missing, or left behind by a process that ended: `ECONNREFUSED`). A listener whose backlog is full
    /// (`EAGAIN`) is still there: then the connection completes later, and the socket is returned.
    static func connectUnixStream(_ path: String) -> Int32? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard let descriptor = try? run("socket", { socket(AF_UNIX, flags, 0) }) else { return nil }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + 1)
        let connected = try? runNonBlocking("connect") {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
            }
        }
        guard connected != nil else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Whether a path exists (`access(F_OK)`).
    static func pathExists(_ path: String) -> Bool {
        path.withCString { access($0, F_OK) } == 0
    }

    /// The last component of a symbolic link's target, or `nil` when it is no link.
    static func linkTargetName(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = path.withCString { readlink($0, &buffer, buffer.count - 1) }
        guard count > 0 else { return nil }
        let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return target.split(separator: "/").last.map(String.init)
    }
}

/// The C library's `close`, named apart from `SystemCall.close(_:)` and the sockets' own `close()`, which hide it.
func libcClose(_ descriptor: Int32) -> Int32 { close(descriptor) }

/// The C library's `read`, named apart from the readers' own `read` methods.
func libcRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { read(descriptor, buffer, count) }

/// The C library's `send`, named apart from `NetlinkSocket.send(_:)`, which hides it.
package func libcSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    send(descriptor, bytes, count, flags)
}
