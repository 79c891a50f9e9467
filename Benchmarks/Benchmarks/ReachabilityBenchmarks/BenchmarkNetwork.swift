#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The network the benchmarks run in: scripts/bench's namespace, or whatever the host has.
enum BenchmarkNetwork {
    /// Set by scripts/bench inside its namespace, where changing routes is safe.
    static let isBenchmarkNamespace = getenv("NR_BENCH_NAMESPACE") != nil
    /// Carried by the default route in scripts/bench's namespace.
    static let routedAddress = "203.0.113.7"
    /// An `unreachable` route covers it in scripts/bench's namespace.
    static let unreachableAddress = "198.51.100.7"
    /// The default route's gateway in scripts/bench's namespace.
    static let gateway: [UInt8] = [192, 0, 2, 1]

    /// Routes in the IPv4 main table, from `/proc/net/route` (one header line).
    static func ipv4RouteCount() -> Int {
        guard let file = fopen("/proc/net/route", "r") else { return 0 }
        defer { fclose(file) }
        var lines = 0
        while true {
            let character = getc(file)
            if character == EOF { break }
            if character == 10 { lines += 1 }
        }
        return max(lines - 1, 0)
    }

    /// Adds or deletes the IPv4 default route via ``gateway`` with one rtnetlink request and waits for the
    /// kernel's acknowledgement: the change the 10,000-target benchmark times.
    static func setDefaultRoute(present: Bool) {
        setRoute(to: [0, 0, 0, 0], length: 0, present: present)
    }

    /// Adds (or replaces) or deletes an IPv4 route in the main table with one rtnetlink request, and waits
    /// for the kernel's acknowledgement: via ``gateway``, or of type `unreachable` when `unreachable`.
    static func setRoute(to destination: [UInt8], length: UInt8, unreachable: Bool = false, present: Bool) {
        let descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)  // 0: NETLINK_ROUTE
        precondition(descriptor >= 0, "netlink socket: errno \(errno)")
        defer { close(descriptor) }
        let type: UInt16 = present ? 24 : 25  // RTM_NEWROUTE / RTM_DELROUTE
        let flags: UInt16 = present ? 0x1 | 0x4 | 0x400 | 0x100 : 0x1 | 0x4  // REQUEST|ACK (+CREATE|REPLACE)
        let routeType: UInt8 = unreachable ? 7 : 1  // RTN_UNREACHABLE / RTN_UNICAST
        var attributes: [UInt8] = []
        func append<T>(_ value: T, to bytes: inout [UInt8]) { withUnsafeBytes(of: value) { bytes += $0 } }
        if length > 0 {
            append(UInt16(8), to: &attributes)
            append(UInt16(1), to: &attributes)  // RTA_DST
            attributes += destination
        }
        if !unreachable {
            append(UInt16(8), to: &attributes)
            append(UInt16(5), to: &attributes)  // RTA_GATEWAY
            attributes += gateway
        }
        var message: [UInt8] = []
        append(UInt32(16 + 12 + attributes.count), to: &message)
        append(type, to: &message)
        append(flags, to: &message)
        append(UInt32(1), to: &message)
        append(UInt32(0), to: &message)
        // rtmsg: family, dst_len, src_len, tos, main table, boot, universe, type, flags
        message += [UInt8(AF_INET), length, 0, 0, 254, 3, 0, routeType] + [0, 0, 0, 0]
        message += attributes
        let sent = message.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        precondition(sent == message.count, "netlink send: errno \(errno)")
        var answer = [UInt8](repeating: 0, count: 1024)
        _ = answer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
    }

    /// The process's resident memory in KiB (the second field of `/proc/self/statm`, in pages).
    static func residentKiB() -> Int {
        guard let file = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 128)
        guard fgets(&line, Int32(line.count), file) != nil else { return 0 }
        let fields = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return 0 }
        return pages * sysconf(Int32(_SC_PAGESIZE)) / 1024
    }
}
