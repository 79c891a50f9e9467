import NetworkReachabilityCore
import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One TCP socket as sock_diag reports it (`SOCK_DIAG_BY_FAMILY`: an `inet_diag_msg` and its `INET_DIAG_INFO`, the
/// kernel's `tcp_info`), in a dump's answer or a closing socket's event: the figures a quality sample is made of.
struct FlowReport: Sendable, Equatable {
    /// The kernel's cookie of the socket: the same socket in two reads.
    var cookie: UInt64
    var source: IPAddress
    var destination: IPAddress
    /// The smoothed round trip (`tcpi_rtt`), in microseconds; 0 before the first one was measured.
    var rttMicroseconds: UInt32
    /// The shortest round trip seen (`tcpi_min_rtt`), where the kernel reports it.
    var minimumRTTMicroseconds: UInt32?
    /// Bytes the peer acknowledged (`tcpi_bytes_acked`) and bytes received (`tcpi_bytes_received`).
    var bytesAcknowledged: UInt64
    var bytesReceived: UInt64
    /// The sender's delivery rate in bytes a second (`tcpi_delivery_rate`), where reported.
    var deliveryRate: UInt64?
    /// The rate was limited by the application, not the path (`tcpi_delivery_rate_app_limited`).
    var isApplicationLimited: Bool

    /// The bytes the flow moved either way.
    var bytesMoved: UInt64 { bytesAcknowledged &+ bytesReceived }

    private static let messageLength = Int(cnl_inet_diag_msg_length())

    /// The report in `message`, or `nil` when it is not one (another type) or is malformed: a header shorter than
    /// `inet_diag_msg`, a family other than IPv4 or IPv6, an attribute whose length lies, or a `tcp_info` too short
    /// for the round trip and the byte counts.
    init?(_ message: NetlinkMessage) {
        guard message.type == cnl_sock_diag_by_family(), message.payload.count >= Self.messageLength,
            let family = message.payload.byte(at: 0)
        else { return nil }
        let addressLength: Int
        switch Int32(family) {
        case AF_INET: addressLength = 4
        case AF_INET6: addressLength = 16
        default: return nil
        }
        guard let sourceBytes = message.payload.bytes(at: Int(cnl_inet_diag_msg_source_offset()), count: addressLength),
            let destinationBytes = message.payload.bytes(
                at: Int(cnl_inet_diag_msg_destination_offset()), count: addressLength),
            let source = IPAddress(networkOrder: sourceBytes),
            let destination = IPAddress(networkOrder: destinationBytes),
            let cookie = message.payload.uint64(at: Int(cnl_inet_diag_msg_cookie_offset())),
            let attributes = message.attributes(afterHeaderOfLength: Self.messageLength),
            let info = attributes.first(where: { $0.type == cnl_inet_diag_info() })?.payload,
            let rtt = info.uint32(at: Int(cnl_tcp_info_rtt_offset())),
            let acknowledged = info.uint64(at: Int(cnl_tcp_info_bytes_acked_offset())),
            let received = info.uint64(at: Int(cnl_tcp_info_bytes_received_offset())),
            let flags = info.byte(at: Int(cnl_tcp_info_app_limited_byte()))
        else { return nil }
        self.cookie = cookie
        self.source = source
        self.destination = destination
        rttMicroseconds = rtt
        minimumRTTMicroseconds = info.uint32(at: Int(cnl_tcp_info_min_rtt_offset())).flatMap { $0 == 0 || $0 == .max ? nil : $0 }
        bytesAcknowledged = acknowledged
        bytesReceived = received
        deliveryRate = info.uint64(at: Int(cnl_tcp_info_delivery_rate_offset()))
        isApplicationLimited = flags & cnl_tcp_info_app_limited_mask() != 0
    }

    /// Makes a report by hand (tests, the fuzzer's seeds).
    init(
        cookie: UInt64, source: IPAddress, destination: IPAddress, rttMicroseconds: UInt32,
        minimumRTTMicroseconds: UInt32? = nil, bytesAcknowledged: UInt64 = 0, bytesReceived: UInt64 = 0,
        deliveryRate: UInt64? = nil, isApplicationLimited: Bool = false
    ) {
        self.cookie = cookie
        self.source = source
        self.destination = destination
        self.rttMicroseconds = rttMicroseconds
        self.minimumRTTMicroseconds = minimumRTTMicroseconds
        self.bytesAcknowledged = bytesAcknowledged
        self.bytesReceived = bytesReceived
        self.deliveryRate = deliveryRate
        self.isApplicationLimited = isApplicationLimited
    }

    /// A dump request for every TCP socket of `family` in the flow states (`cnl_tcp_flow_states`), each with its
    /// `tcp_info`: `ss -ti`'s question.
    static func dumpRequest(family: IPAddress.Family, sequence: UInt32) -> [UInt8] {
        let length = NetlinkWriter.headerSize + Int(cnl_inet_diag_req_v2_length())
        var bytes = [UInt8](repeating: 0, count: length)
        bytes.withUnsafeMutableBytes { raw in
            var writer = NetlinkWriter(raw, messageStart: 0, offset: 0)
            writer.header(
                length: length, type: cnl_sock_diag_by_family(), flags: UInt16(NLM_F_DUMP), sequence: sequence)
            writer.field(UInt8(family == .ipv4 ? AF_INET : AF_INET6))
            writer.field(UInt8(IPPROTO_TCP))
            writer.field(cnl_inet_diag_info_extension())
            writer.field(UInt8(0))
            writer.field(cnl_tcp_flow_states())
            // The socket id stays zero: every socket.
        }
        return bytes
    }
}
