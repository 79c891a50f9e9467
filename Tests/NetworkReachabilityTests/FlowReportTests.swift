import CNetlink
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@_spi(Tooling) @testable import NetworkReachabilityLinux
import TestSupport

/// sock_diag's reports of TCP sockets, as the quality reader reads them: this kernel's own answers (the fuzz corpus),
/// and every way of cutting one short.
struct FlowReportTests {
    /// A report as the kernel writes it: `inet_diag_msg`, then `INET_DIAG_INFO` holding `infoLength` bytes of
    /// `tcp_info` with the round trip and byte counts set.
    private static func message(family: Int32 = AF_INET, infoLength: Int = 232) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: Int(cnl_inet_diag_msg_length()))
        header[0] = UInt8(family)
        header[1] = 1  // established
        let source = family == AF_INET ? [10, 0, 0, 2] : [0x20, 1, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [2]
        let destination = family == AF_INET ? [203, 0, 113, 80] : [0x20, 1, 0x0d, 0xb8, 0, 9] + [UInt8](repeating: 0, count: 9) + [80]
        for (offset, byte) in source.enumerated() { header[Int(cnl_inet_diag_msg_source_offset()) + offset] = byte }
        for (offset, byte) in destination.enumerated() { header[Int(cnl_inet_diag_msg_destination_offset()) + offset] = byte }
        header[Int(cnl_inet_diag_msg_cookie_offset())] = 7
        var info = [UInt8](repeating: 0, count: infoLength)
        func put<Value: FixedWidthInteger>(_ value: Value, at offset: UInt32) {
            guard Int(offset) + MemoryLayout<Value>.size <= info.count else { return }
            withUnsafeBytes(of: value) { for (index, byte) in $0.enumerated() { info[Int(offset) + index] = byte } }
        }
        put(UInt32(420_000), at: cnl_tcp_info_rtt_offset())
        put(UInt32(380_000), at: cnl_tcp_info_min_rtt_offset())
        put(UInt64(40_000), at: cnl_tcp_info_bytes_acked_offset())
        put(UInt64(1_000_000), at: cnl_tcp_info_bytes_received_offset())
        put(UInt64(76_250), at: cnl_tcp_info_delivery_rate_offset())
        var request = NetlinkRequest(type: cnl_sock_diag_by_family(), sequence: 1, familyHeader: header)
        request.appendAttribute(cnl_inet_diag_info(), info)
        return request.finished()
    }

    private static func report(_ bytes: [UInt8]) -> FlowReport? {
        NetlinkMessage.split(bytes[...]).messages.first.flatMap(FlowReport.init)
    }

    @Test func aReportGivesItsPeerRoundTripAndBytes() throws {
        let report = try #require(Self.report(Self.message()))
        let (source, destination) = (try IPAddress("10.0.0.2"), try IPAddress("203.0.113.80"))
        #expect(report.source == source && report.destination == destination)
        #expect(report.rttMicroseconds == 420_000 && report.minimumRTTMicroseconds == 380_000)
        #expect(report.bytesMoved == 1_040_000 && report.deliveryRate == 76_250 && !report.isApplicationLimited)
        #expect(report.cookie == 7)
        let six = try #require(Self.report(Self.message(family: AF_INET6)))
        let far = try IPAddress("2001:db8:9::50")
        #expect(six.destination == far)
    }

    @Test func anOlderKernelsShorterInfoGivesWhatItHas() throws {
        // Up to the byte counts (before min_rtt and delivery_rate were added).
        let short = try #require(Self.report(Self.message(infoLength: Int(cnl_tcp_info_bytes_received_offset()) + 8)))
        #expect(short.minimumRTTMicroseconds == nil && short.deliveryRate == nil && short.rttMicroseconds == 420_000)
    }

    @Test func everyCutOfAReportIsDroppedNotTrusted() {
        let whole = Self.message()
        // Every length short of the whole, with the header's length made to match: none parses as a report unless
        // the info still holds the round trip and byte counts.
        let needed = NetlinkMessage.headerLength + Int(cnl_inet_diag_msg_length()) + 4
            + Int(cnl_tcp_info_bytes_received_offset()) + 8
        for length in 0..<whole.count {
            var cut = Array(whole[..<length])
            if length >= 4 { cut.replaceSubrange(0..<4, with: withUnsafeBytes(of: UInt32(length)) { Array($0) }) }
            let parsed = Self.report(cut)
            #expect((parsed != nil) == false || length >= needed, "length \(length)")
        }
        // A family neither IPv4 nor IPv6, and a message of another type.
        var otherFamily = whole
        otherFamily[NetlinkMessage.headerLength] = UInt8(AF_UNIX)
        #expect(Self.report(otherFamily) == nil)
        var otherType = whole
        otherType[4] = 21
        #expect(Self.report(otherType) == nil)
    }

    @Test func thisKernelsDumpsAndEventsAreRead() throws {
        let inputs = FuzzInputs.read("corpus/netlink").filter { $0.name.hasPrefix("sockdiag-") }
        let dumps = inputs.filter { $0.name.contains("dump") }.map { KernelBytes.flowReportCount(datagram: $0.bytes[...]) }
        let events = inputs.filter { $0.name.contains("destroy") }.map { KernelBytes.flowReportCount(datagram: $0.bytes[...]) }
        // Each family's dump lists the client and the accepted socket at least; the closing ones were reported.
        #expect(dumps.reduce(0, +) >= 4, "\(dumps)")
        #expect(events.reduce(0, +) >= 4, "\(events)")
    }

    @Test func theDumpRequestAsksEveryTCPSocketWithItsInfo() {
        let request = FlowReport.dumpRequest(family: .ipv6, sequence: 9)
        #expect(request.count == NetlinkMessage.headerLength + Int(cnl_inet_diag_req_v2_length()))
        let message = NetlinkMessage.split(request[...]).messages.first
        #expect(message?.type == cnl_sock_diag_by_family() && message?.sequence == 9)
        #expect(message?.flags == UInt16(NLM_F_REQUEST | NLM_F_DUMP))
        #expect(message?.payload.byte(at: 0) == UInt8(AF_INET6) && message?.payload.byte(at: 1) == UInt8(IPPROTO_TCP))
        #expect(message?.payload.byte(at: 2) == cnl_inet_diag_info_extension())
        #expect(message?.payload.uint32(at: Int(cnl_inet_diag_req_states_offset())) == cnl_tcp_flow_states())
    }
}
