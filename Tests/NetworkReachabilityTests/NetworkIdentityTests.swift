import CNetlink
import Foundation
import Testing
import TestSupport

@testable import NetworkReachabilityCore
@_spi(Tooling) @testable import NetworkReachabilityLinux

/// A network's identity: the hash (SHA-256 and HMAC against their standards' vectors), the rule that says what it
/// rests on, the neighbour messages it is read from, and the book that keeps a gateway's MAC address.
struct NetworkIdentityTests {
    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test func sha256AndHMACMatchTheirStandardsVectors() {
        // FIPS 180-4's examples (one block, two blocks) and the empty message
        #expect(Self.hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let twoBlocks = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(Self.hex(SHA256.hash(twoBlocks)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // RFC 4231 test cases 1, 2 and 6 (a key longer than a block is hashed first)
        #expect(
            Self.hex(SHA256.authenticationCode(Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            Self.hex(SHA256.authenticationCode(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            Self.hex(
                SHA256.authenticationCode(
                    Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                    key: [UInt8](repeating: 0xaa, count: 131)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    private let salt = Array("host one".utf8)
    private let gateway = try! IPAddress("192.168.1.1")
    private let router = try! IPAddress("fe80::1")
    private let macA: [UInt8] = [2, 0, 0, 0, 0x0a, 1]
    private let macB: [UInt8] = [2, 0, 0, 0, 0x0b, 1]

    @Test func anEthernetNetworkRestsOnItsGatewaysMACAloneAndNoneWhileUnresolved() throws {
        let home = try #require(
            NetworkFacts(hasLinkLayer: true, ipv4Gateway: gateway, ipv4GatewayLinkAddress: macA).identity(salt: salt))
        #expect(home.ingredients == [.gatewayMAC] && home.id.count == 16 && home.label == nil)
        // The same gateway after a renewal, whatever the IPv6 router says: the same network
        let withRouter = NetworkFacts(
            hasLinkLayer: true, ipv4Gateway: gateway, ipv4GatewayLinkAddress: macA, ipv6Router: router,
            ipv6RouterLinkAddress: macB)
        #expect(withRouter.identity(salt: salt) == home)
        // The same addresses behind another gateway: another network; another host's salt: another id
        let cafe = NetworkFacts(hasLinkLayer: true, ipv4Gateway: gateway, ipv4GatewayLinkAddress: macB)
        #expect(cafe.identity(salt: salt)?.id != home.id)
        let otherHost = NetworkFacts(hasLinkLayer: true, ipv4Gateway: gateway, ipv4GatewayLinkAddress: macA)
        #expect(otherHost.identity(salt: Array("host two".utf8))?.id != home.id)
        // An unresolved gateway: no identity yet, rather than one that changes when it resolves
        #expect(NetworkFacts(hasLinkLayer: true, ipv4Gateway: gateway).identity(salt: salt) == nil)
        // IPv6 only: the router's MAC; a link without a link layer: the router's address; nothing: none
        let ipv6Only = NetworkFacts(hasLinkLayer: true, ipv6Router: router, ipv6RouterLinkAddress: macA)
        #expect(ipv6Only.identity(salt: salt) == home)
        let ppp = try #require(NetworkFacts(hasLinkLayer: false, ipv4Gateway: gateway, ipv6Router: router).identity(salt: salt))
        #expect(ppp.ingredients == [.router] && ppp.id != home.id)
        #expect(NetworkFacts(hasLinkLayer: false, ipv4Gateway: gateway).identity(salt: salt) == nil)
        // The line reach watch prints
        var labelled = home
        labelled.label = "home"
        #expect(labelled.summary == "home (\(home.id.prefix(4))…)" && home.summary == "\(home.id.prefix(4))…")
    }

    /// An `RTM_NEWNEIGH`/`RTM_DELNEIGH` as the kernel writes one: `ndmsg`, `NDA_DST`, and `NDA_LLADDR` when resolved.
    private static func neighbourMessage(
        type: Int32 = Int32(RTM_NEWNEIGH), state: UInt16 = 0x02, address: [UInt8] = [192, 168, 1, 1],
        linkAddress: [UInt8]? = [2, 0, 0, 0, 0x0a, 1], family: UInt8 = 2
    ) -> [UInt8] {
        var payload: [UInt8] = [family, 0, 0, 0, 7, 0, 0, 0, UInt8(state & 0xff), UInt8(state >> 8), 0, 1]
        func attribute(_ type: UInt16, _ value: [UInt8]) {
            let length = 4 + value.count
            payload += [UInt8(length & 0xff), UInt8(length >> 8), UInt8(type & 0xff), UInt8(type >> 8)] + value
            while payload.count % 4 != 0 { payload.append(0) }
        }
        attribute(UInt16(NDA_DST), address)
        if let linkAddress { attribute(UInt16(NDA_LLADDR), linkAddress) }
        let length = 16 + payload.count
        let header: [UInt8] = [
            UInt8(length & 0xff), UInt8(length >> 8), 0, 0, UInt8(type & 0xff), UInt8(type >> 8), 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0,
        ]
        return header + payload
    }

    private static func neighbour(_ bytes: [UInt8]) -> Neighbour? {
        guard let message = NetlinkMessage.split(bytes[...]).messages.first else { return nil }
        return Neighbour(message)
    }

    @Test func neighbourMessagesAreReadWithTheirStateAndEveryCutIsDropped() throws {
        let reachable = try #require(Self.neighbour(Self.neighbourMessage()))
        #expect(reachable.interfaceIndex == 7 && reachable.address == gateway && reachable.linkLayerAddress == macA)
        // Failed or incomplete: the address the kernel no longer trusts is not read
        #expect(Self.neighbour(Self.neighbourMessage(state: 0x20))?.linkLayerAddress == nil)
        #expect(Self.neighbour(Self.neighbourMessage(state: 0x01, linkAddress: nil))?.linkLayerAddress == nil)
        #expect(Self.neighbour(Self.neighbourMessage(type: Int32(RTM_DELNEIGH)))?.isDeletion == true)
        // A bridge's forwarding entry (no IP address) is not a neighbour, and not malformed either
        let bridgeEntry = Self.neighbourMessage(address: [], linkAddress: macA, family: 7)
        #expect(KernelBytes.tally(datagram: bridgeEntry[...]) == (parsed: 1, malformed: 0))
        // Every truncation is dropped and counted, never read past its end
        let whole = Self.neighbourMessage()
        for cut in 16..<whole.count {
            var truncated = Array(whole[..<cut])
            truncated[0] = UInt8(cut)
            #expect(KernelBytes.tally(datagram: truncated[...]).parsed <= 1)
            if cut < 28 { #expect(Self.neighbour(truncated) == nil) }
        }
    }

    @Test func theBookKeepsAGatewaysMACThroughItsEntrysEndAndForgetsItWithTheLink() {
        var book = NeighbourBook([Neighbour(interfaceIndex: 7, address: gateway, linkLayerAddress: macA)])
        book.watch(gateway, onInterface: 7)
        func apply(_ neighbour: Neighbour) -> Bool { book.apply(neighbour) }
        // State changes with the same address are not changes; a deleted or failed entry keeps what was learned
        #expect(!apply(Neighbour(interfaceIndex: 7, address: gateway, linkLayerAddress: macA)))
        #expect(!apply(Neighbour(interfaceIndex: 7, address: gateway, linkLayerAddress: nil, isDeletion: true)))
        #expect(book.linkAddress(of: gateway, onInterface: 7) == macA)
        // Another MAC for the gateway is a change; for a neighbour nobody's identity rests on, it is not
        #expect(apply(Neighbour(interfaceIndex: 7, address: gateway, linkLayerAddress: macB)))
        let peer = try! IPAddress("192.168.1.50")
        #expect(!apply(Neighbour(interfaceIndex: 7, address: peer, linkLayerAddress: macA)))
        #expect(!apply(Neighbour(interfaceIndex: 7, address: peer, linkLayerAddress: nil, isDeletion: true)))
        #expect(book.linkAddress(of: peer, onInterface: 7) == nil)
        // The link went down: it may come back elsewhere
        book.forget(interfaceIndex: 7)
        #expect(book.linkAddress(of: gateway, onInterface: 7) == nil)
        #expect(!apply(Neighbour(interfaceIndex: 7, address: gateway, linkLayerAddress: macA)))
    }

    @Test func anOverflowsFreshTableKeepsTheGatewaysItFollowed() {
        var book = NeighbourBook([Neighbour(interfaceIndex: 7, address: gateway, linkLayerAddress: macA)])
        book.watch(gateway, onInterface: 7)
        // The kernel dropped the idle gateway's entry while notifications were lost: the network stayed
        let refreshed = book.refreshed(with: [])
        #expect(refreshed.linkAddress(of: gateway, onInterface: 7) == macA)
        // Resolved to another MAC meanwhile: that one
        let moved = book.refreshed(with: [Neighbour(interfaceIndex: 7, address: gateway, linkLayerAddress: macB)])
        #expect(moved.linkAddress(of: gateway, onInterface: 7) == macB)
        var followed = moved
        let changed = followed.apply(Neighbour(interfaceIndex: 7, address: gateway, linkLayerAddress: macA))
        #expect(changed)
    }

    @Test func aMoveReadsWithShortIDsThatNeverReadTheSame() {
        let home = NetworkIdentity(id: "06cff84c41a044e5", label: "home", ingredients: [.gatewayMAC])
        let cafe = NetworkIdentity(id: "7c21e0a94b3d5f86", ingredients: [.gatewayMAC])
        #expect(NetworkIdentity.change(from: home, to: cafe) == "home (06cf…) → 7c21…")
        // A neighbour that chose its MAC so the first four digits collide (the attack found one in 0.8 s)
        let lookalike = NetworkIdentity(id: "06cf259e5e981cfb", ingredients: [.gatewayMAC])
        #expect(NetworkIdentity.change(from: home, to: lookalike) == "home (06cff…) → 06cf2…")
        let twin = NetworkIdentity(id: "06cff84c41a044e4", ingredients: [.gatewayMAC])
        #expect(NetworkIdentity.change(from: twin, to: home) == "06cff84c41a044e4 → home (06cff84c41a044e5)")
    }

    @Test func aKeptKeyIsReadMadeOnceRepairedAndNeverTakenFromAnotherUser() throws {
        #expect(HostSalt.machineID("3d1219c7c4c5404aaa1f6d2a48adfda4\n")?.count == 32)
        #expect(HostSalt.machineID("uninitialized\n") == nil && HostSalt.machineID("") == nil)
        let folder = try TestFolder.make("salt")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let directory = folder + "/state/reach"
        let key = try #require(HostSalt.keptKey(in: directory, owner: 0, readableByAll: false))
        #expect(key.count == 32 && HostSalt.keptKey(in: directory, owner: 0, readableByAll: false) == key)
        var info = stat()
        #expect(stat(directory + "/identity-salt", &info) == 0 && info.st_mode & 0o777 == 0o600)
        // Cut short: replaced by a valid key, not a new one per run
        #expect(truncate(directory + "/identity-salt", 5) == 0)
        let repaired = try #require(HostSalt.keptKey(in: directory, owner: 0, readableByAll: false))
        #expect(repaired != key && HostSalt.keptKey(in: directory, owner: 0, readableByAll: false) == repaired)
        // Another user's file, or a directory others may write: no key
        #expect(chown(directory + "/identity-salt", 65534, 65534) == 0)
        #expect(HostSalt.keptKey(in: directory, owner: 0, readableByAll: false) == nil)
        #expect(chown(directory + "/identity-salt", 0, 0) == 0 && chmod(directory, 0o777) == 0)
        #expect(HostSalt.keptKey(in: directory, owner: 0, readableByAll: false) == nil)
    }

    /// Under root's common umask 077, the host's key directory and key are still made readable by every user (the
    /// umask is changed on a thread of its own, unshared from the process, so no other test's files are touched).
    @Test(.ownThread) func theHostsKeyIsReadableByUsersWhateverRootsUmask() throws {
        let folder = try TestFolder.make("salt-umask")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let directory = folder + "/var/lib/reach"
        let made = Recorder<(unshared: Int32, key: [UInt8]?)>()
        Thread {
            // unshare(2) with CLONE_FS (0x200), which Swift's Glibc module does not declare
            typealias Unshare = @convention(c) (Int32) -> Int32
            let unshare = dlsym(dlopen(nil, RTLD_NOW), "unshare").map { unsafeBitCast($0, to: Unshare.self) }
            let unshared = unshare?(0x200) == 0 ? 0 : errno
            if unshared == 0 { umask(0o077) }
            made.append((unshared, unshared == 0 ? HostSalt.keptKey(in: directory, owner: 0, readableByAll: true) : nil))
        }.start()
        let result = try #require(made.waitFor(1).first)
        #expect(result.unshared == 0, "unshare(CLONE_FS): errno \(result.unshared)")
        #expect(result.key?.count == 32)
        var info = stat()
        for (path, mode) in [(folder + "/var", 0o755), (folder + "/var/lib", 0o755), (directory, 0o755), (directory + "/identity-salt", 0o644)] {
            #expect(stat(path, &info) == 0 && Int(info.st_mode & 0o777) == mode, "\(path): \(String(info.st_mode & 0o777, radix: 8))")
        }
        // One an earlier release made 0700 and 0600 is opened to users, and keeps its key
        #expect(chmod(directory, 0o700) == 0 && chmod(directory + "/identity-salt", 0o600) == 0)
        #expect(HostSalt.keptKey(in: directory, owner: 0, readableByAll: true) == result.key)
        #expect(stat(directory, &info) == 0 && info.st_mode & 0o777 == 0o755)
        #expect(stat(directory + "/identity-salt", &info) == 0 && info.st_mode & 0o777 == 0o644)
    }
}
