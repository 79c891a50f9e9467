import Dispatch
import NetworkReachabilityKit
import NetworkReachabilityTesting
import Testing
import TestSupport

/// What a developer coming from `NWPathMonitor` writes: a temporary's `updates` iterated, a reader that falls behind,
/// the path monitor's handler, current path and cancel, and a listener on the main actor.
struct PathMonitorAndUpdatesTests {
    /// A host with Wi-Fi `wlan0` (192.168.1.20/24) and a default route through 192.168.1.1.
    private func wifiNetwork() throws -> SimulatedNetwork {
        let network = SimulatedNetwork()
        try network.addInterface("wlan0", type: .wifi)
        try network.addAddress("192.168.1.20/24", to: "wlan0")
        try network.addDefaultRoute(via: "192.168.1.1")
        return network
    }

    @Test(.timeLimit(.minutes(1)))  // a sequence that ended would make `next()` nil; one never fed would hang
    func aTemporarysUpdatesGoOnWhileTheyAreIterated() async throws {
        let network = try wifiNetwork()
        var updates = try NetworkReachability(network: network).updates.makeAsyncIterator()
        #expect(await updates.next()?.status == .reachable(.ethernetOrWiFi))
        network.removeDefaultRoutes()
        #expect(await updates.next()?.status == .notReachable)
        try network.addDefaultRoute(via: "192.168.1.1")
        #expect(await updates.next()?.status == .reachable(.ethernetOrWiFi))
    }

    @Test func droppingTheSequenceReleasesItsObject() async throws {
        let network = try wifiNetwork()
        weak var released: NetworkReachability?
        do {
            let reachability = try NetworkReachability(network: network)
            released = reachability
            var updates = reachability.updates.makeAsyncIterator()
            _ = await updates.next()
        }
        #expect(released == nil)
    }

    @Test(.timeLimit(.minutes(1)))
    func aReaderThatFallsBehindGetsTheNewestSnapshotsUpToTheLimit() async throws {
        let network = try wifiNetwork()
        let reachability = try NetworkReachability(network: network)
        var updates = reachability.updates.makeAsyncIterator()
        #expect(await updates.next() != nil)
        for _ in 0..<150 {  // 300 changes nobody reads
            try network.setCarrier(false, on: "wlan0")
            try network.setCarrier(true, on: "wlan0")
        }
        try network.addDefaultRoute(via: "192.168.1.254", metric: -1)  // the newest, told apart by its gateway
        var kept = 0
        while let snapshot = await updates.next() {
            kept += 1
            if snapshot.path.gateway == (try IPAddress("192.168.1.254")) { break }
        }
        #expect(kept == NetworkReachability.updatesBufferLimit)
    }

    @Test func thePathMonitorHandsEachPathToItsHandlerUntilCancelled() throws {
        let network = try wifiNetwork()
        let monitor = NetworkPathMonitor(reachability: try NetworkReachability(network: network))
        let heard = Recorder<NetworkPath>()
        monitor.pathUpdateHandler = { heard.append($0) }
        let queue = DispatchQueue(label: "paths")
        #expect(monitor.currentPath.status == .satisfied)  // read now: not started
        #expect(monitor.start(queue: queue))
        #expect(monitor.queue === queue)
        network.settle()
        queue.sync {}
        #expect(heard.values.map(\.status) == [.satisfied])
        #expect(heard.values.first?.usesInterfaceType(.wifi) == true)
        #expect(heard.values.first?.gateways == [try IPAddress("192.168.1.1")])
        #expect(heard.values.first?.isExpensive == false)
        try network.setCarrier(false, on: "wlan0")
        queue.sync {}
        #expect(heard.values.map(\.status) == [.satisfied, .unsatisfied])
        #expect(heard.values.last?.unsatisfiedReason == .noCarrier)
        #expect(monitor.currentPath == heard.values.last)
        monitor.cancel()
        try network.setCarrier(true, on: "wlan0")
        queue.sync {}
        #expect(heard.values.count == 2)
        #expect(monitor.queue == nil)
    }

    @Test func aCellularPathIsExpensiveAndARequiredTypeIsHeld() throws {
        let network = SimulatedNetwork()
        try network.addInterface("wwan0", type: .cellular)
        try network.addAddress("10.64.0.2/30", to: "wwan0")
        try network.addDefaultRoute(via: "10.64.0.1")
        let cellular = NetworkPathMonitor(reachability: try NetworkReachability(network: network)).currentPath
        #expect(cellular.status == .satisfied && cellular.isExpensive && cellular.usesInterfaceType(.cellular))
        let wifiOnly = try NetworkReachability(
            target: .restricted(.internet, InterfaceRestriction(requiredType: .wifi)), network: network)
        let path = NetworkPathMonitor(reachability: wifiOnly).currentPath
        #expect(path.status == .unsatisfied && path.unsatisfiedReason == .prohibitedInterfaceType)
    }

    @Test(.timeLimit(.minutes(1)))
    func aMainActorListenerHearsTheStatusOnTheMainActor() async throws {
        let network = try wifiNetwork()
        let reachability = try NetworkReachability(network: network)
        let heard = Recorder<NetworkReachabilityStatus>()
        let started = reachability.startListening(onMainActor: { status in
            MainActor.preconditionIsolated()
            heard.append(status)
        })
        #expect(started)
        #expect(await eventuallyAsync { heard.values == [.reachable(.ethernetOrWiFi)] })
        network.removeDefaultRoutes()
        #expect(await eventuallyAsync { heard.values == [.reachable(.ethernetOrWiFi), .notReachable] })
        reachability.stopListening()
    }
}
