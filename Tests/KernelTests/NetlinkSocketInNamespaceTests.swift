import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// The socket's own contract against the real kernel: who sent a datagram, and whether it was cut.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct NetlinkSocketInNamespaceTests {
    @Test func aReplyLargerThanTheBufferIsCutAndSaysSoAndTheNextArrivesWhole() throws {
        // Given a request socket in a namespace, and a route lookup whose answer is larger than 16 bytes
        let network = try TestNetwork()
        defer { network.remove() }
        let socket = try NetlinkSocket(receiveTimeout: 5, namespace: NetworkNamespace(named: network.name))
        defer { socket.close() }
        let lookup = KernelRequest.route(to: try IPAddress(TestNetwork.gatewayIPv4), from: nil, interfaceIndex: nil)
        // When the answer is received into 16 bytes
        try socket.send(lookup.encode(sequence: 1, appendingTo: []))
        var small = [UInt8](repeating: 0, count: 16)
        let cut = try socket.receive(into: &small)
        // Then the datagram says it was cut, to the buffer's size, and that the kernel sent it
        guard case .completed(let cutDatagram) = cut else { Issue.record("no datagram: \(cut)"); return }
        #expect(cutDatagram.isTruncated)
        #expect(cutDatagram.count == 16)
        #expect(cutDatagram.senderPortID == 0)
        // And the next answer, received into room enough, is whole: its length is the message's own
        try socket.send(lookup.encode(sequence: 2, appendingTo: []))
        var large = [UInt8](repeating: 0, count: 8192)
        guard case .completed(let whole) = try socket.receive(into: &large) else {
            Issue.record("no second datagram")
            return
        }
        let messageLength = large.withUnsafeBytes { Int($0.loadUnaligned(as: UInt32.self)) }
        #expect(!whole.isTruncated)
        #expect(whole.count == messageLength)
        #expect(whole.count > 16)
        #expect(whole.senderPortID == 0)
    }
}
