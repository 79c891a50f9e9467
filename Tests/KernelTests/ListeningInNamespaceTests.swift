import CNetlink
import Dispatch
import Foundation
import NetworkReachabilityNotifications
import Testing
import TestSupport

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// The library's listening API against the real kernel, through a backend bound to a test namespace.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct ListeningInNamespaceTests {
    private let queue = DispatchQueue(label: "listener")

    private func internet(in network: TestNetwork) throws -> (NetworkReachability, ReachabilityMonitor) {
        let monitor = ReachabilityMonitor(backend: LinuxRoutingBackend(namespace: NetworkNamespace(named: network.name)))
        return (try NetworkReachability(target: .internet, monitor: monitor, logger: NetworkReachability.silentLogger), monitor)
    }

    @Test func listenerHearsTheInitialStatusOnceThenEachChange() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let (reachability, monitor) = try internet(in: network)
        let statuses = Recorder<NetworkReachabilityStatus>()
        #expect(reachability.startListening(onQueue: queue) { statuses.append($0) })
        #expect(statuses.waitFor(1) == [.reachable(.ethernetOrWiFi)])
        #expect(statuses.valuesAfterQuiet().count == 1)
        try network.ip("route", "del", "default")
        #expect(statuses.waitFor(2) == [.reachable(.ethernetOrWiFi), .notReachable])
        #expect(statuses.valuesAfterQuiet().count == 2)
        reachability.stopListening()
        #expect(!monitor.isSubscribed)
    }

    /// Unplugging a cable changes the flags twice (carrier lost: `-R -c-----`; link down: `-- -------`): the status
    /// listener hears one `.notReachable` (Alamofire 5's rule), the snapshot sequence both changes.
    @Test func aStatusListenerHearsOnlyChangesOfStatus() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let (reachability, _) = try internet(in: network)
        let statuses = Recorder<NetworkReachabilityStatus>()
        let flags = Recorder<String>()
        reachability.startListening(onQueue: queue) { statuses.append($0) }
        let consumer = try reachability.addConsumer(rule: .snapshot) { flags.append($0.flags.flagsString) }
        defer { reachability.removeConsumer(consumer) }
        #expect(flags.waitFor(1) == ["-R -------"])
        try network.gatewayIP("link", "set", "rngw", "down")
        #expect(flags.waitFor(2) == ["-R -------", "-R -c-----"])
        try network.ip("link", "set", "rn0", "down")
        #expect(flags.waitFor(3) == ["-R -------", "-R -c-----", "-- -------"])
        #expect(statuses.valuesAfterQuiet() == [.reachable(.ethernetOrWiFi), .notReachable])
        reachability.stopListening()
    }

    @Test func startingOfflineStillDeliversTheInitialStatus() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.ip("route", "del", "default")
        let (reachability, _) = try internet(in: network)
        let statuses = Recorder<NetworkReachabilityStatus>()
        reachability.startListening(onQueue: queue) { statuses.append($0) }
        #expect(statuses.waitFor(1) == [.notReachable])
        reachability.stopListening()
    }

    @Test func stoppingInsideTheCallbackEndsDeliveryAndTheSubscription() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let (reachability, monitor) = try internet(in: network)
        let calls = Recorder<NetworkReachabilityStatus>()
        reachability.startListening(onQueue: queue) { [reachability] status in
            calls.append(status)
            reachability.stopListening()
        }
        #expect(calls.waitFor(1).count == 1)
        #expect(eventually { !monitor.isSubscribed })
        try network.ip("route", "del", "default")
        #expect(calls.valuesAfterQuiet().count == 1)
    }

    @Test func noNetlinkDescriptorSurvivesAStop() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        let (reachability, monitor) = try internet(in: network)
        let calls = Recorder<NetworkReachabilityStatus>()
        reachability.startListening(onQueue: queue) { calls.append($0) }
        calls.waitFor(1)
        // Identify the subscription's socket by inode: descriptor numbers are reused by parallel tests.
        let socketNames = monitor.openDescriptors.compactMap { descriptor -> String? in
            let name = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
            return name?.hasPrefix("socket:") == true ? name : nil
        }
        #expect(!socketNames.isEmpty)
        reachability.stopListening()
        let open = Set(
            (try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")
            })
        #expect(open.isDisjoint(with: socketNames))
        #expect(monitor.openDescriptors.isEmpty)
    }

    @Test func sequenceEndsWhenItsTaskIsCancelledAndTheSubscriptionCloses() async throws {
        let network = try TestNetwork()
        defer { network.remove() }
        let (reachability, monitor) = try internet(in: network)
        let snapshots = Recorder<ReachabilitySnapshot>()
        let updates = reachability.updates
        let task = Task { for await snapshot in updates { snapshots.append(snapshot) } }
        #expect(await snapshots.waitForAsync(1).first?.path.gateway?.description == TestNetwork.gatewayIPv4)
        task.cancel()
        await task.value
        #expect(await eventuallyAsync { !monitor.isSubscribed })
    }

    @Test func releasingTheObjectStopsItsListening() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        var (reachability, monitor): (NetworkReachability?, ReachabilityMonitor) = try internet(in: network)
        let calls = Recorder<NetworkReachabilityStatus>()
        reachability?.startListening(onQueue: queue) { calls.append($0) }
        calls.waitFor(1)
        reachability = nil
        #expect(eventually { !monitor.isSubscribed })
    }

    @Test func notificationCarriesTheObjectAndTheSnapshot() throws {
        let network = try TestNetwork()
        defer { network.remove() }
        let (reachability, _) = try internet(in: network)
        let center = NotificationCenter()
        let received = Recorder<String>()
        let observer = center.addObserver(forName: .networkReachabilityChanged, object: reachability, queue: nil) { note in
            let snapshot = note.userInfo?[NetworkReachability.snapshotUserInfoKey] as? ReachabilitySnapshot
            received.append(snapshot?.flags.flagsString ?? "missing")
        }
        defer { center.removeObserver(observer) }
        #expect(reachability.startPostingNotifications(to: center, onQueue: queue))
        #expect(received.waitFor(1) == ["-R -------"])
        reachability.stopPostingNotifications()
    }

    @Test func forgedMessagesFromUserSpaceAreDroppedAndCounted() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let (reachability, monitor) = try internet(in: network)
        let statuses = Recorder<NetworkReachabilityStatus>()
        reachability.startListening(onQueue: queue) { statuses.append($0) }
        statuses.waitFor(1)
        // Given the subscription's port id
        let subscription = try #require(monitor.openDescriptors.first)
        var address = sockaddr_nl()
        var length = socklen_t(MemoryLayout<sockaddr_nl>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(subscription, $0, &length) }
        }
        // When a user-space socket in the same namespace unicasts a forged "link down" to it
        let forger = try NetworkNamespace(named: network.name).perform {
            socket(AF_NETLINK, Int32(SOCK_RAW.rawValue), NETLINK_ROUTE)
        }
        defer { close(forger) }
        var forged = NetlinkRequest(
            type: UInt16(RTM_DELROUTE), sequence: 1, familyHeader: [UInt8(AF_INET), 0, 0, 0, 254, 4, 0, 1, 0, 0, 0, 0]
        ).encoded
        var destination = sockaddr_nl()
        destination.nl_family = sa_family_t(AF_NETLINK)
        destination.nl_pid = address.nl_pid
        let sent = withUnsafePointer(to: &destination) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(forger, &forged, forged.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        #expect(sent == forged.count)
        // Then it is counted as foreign and the status stays
        #expect(eventually { monitor.statistics.foreignMessages >= 1 })
        #expect(statuses.valuesAfterQuiet() == [.reachable(.ethernetOrWiFi)])
        reachability.stopListening()
    }

    @Test(.ownThread(timeLimit: .seconds(60))) func deletingTheNamespaceEndsEverySequenceAndSaysWhy() async throws {
        // Given a sequence of snapshots from a backend bound to a namespace
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let (reachability, monitor) = try internet(in: network)
        let snapshots = Recorder<ReachabilitySnapshot>()
        let updates = reachability.updates
        let task = Task { for await snapshot in updates { snapshots.append(snapshot) } }
        #expect(await snapshots.waitForAsync(1).count == 1)

        // When the namespace is deleted
        _ = try Command.run(["ip", "netns", "del", network.name], check: true)

        // Then the sequence ends by itself, the object says why, and no subscription is left open
        await task.value
        #expect(reachability.listeningFailure == .networkNamespaceDeleted("/run/netns/\(network.name)"))
        #expect(!monitor.isSubscribed)
        #expect(monitor.openDescriptors.isEmpty)
    }
}
