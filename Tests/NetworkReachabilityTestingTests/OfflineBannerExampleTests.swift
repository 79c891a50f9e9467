import Dispatch
import NetworkReachabilityKit
import NetworkReachabilityTesting
import Testing

// The example of the NetworkReachabilityTesting documentation, kept compiling and passing here.

/// A tiny view model: shows "You are offline" while the internet is not reachable.
final class OfflineBanner: @unchecked Sendable {
    /// Whether the banner shows; read and written on `queue` only (the UI's queue in an app).
    private(set) var isShown = false
    private let reachability: NetworkReachability

    init(reachability: NetworkReachability, queue: DispatchQueue) {
        self.reachability = reachability
        reachability.startListening(onQueue: queue) { [weak self] status in
            self?.isShown = !status.isReachable
        }
    }
}

struct OfflineBannerExampleTests {
    @Test func theBannerShowsWhileTheNetworkIsGone() throws {
        // Given a laptop on Wi-Fi with a default route
        let network = SimulatedNetwork()
        try network.addInterface("wlan0", type: .wifi)
        try network.addAddress("192.168.1.20/24", to: "wlan0")
        try network.addDefaultRoute(via: "192.168.1.1")
        let ui = DispatchQueue(label: "ui")
        let banner = OfflineBanner(reachability: try NetworkReachability(network: network), queue: ui)
        network.settle()  // the first status is delivered
        #expect(ui.sync { banner.isShown } == false)

        // When the Wi-Fi drops, the banner shows
        try network.setCarrier(false, on: "wlan0")
        #expect(ui.sync { banner.isShown } == true)

        // When it comes back, the banner goes
        try network.setCarrier(true, on: "wlan0")
        #expect(ui.sync { banner.isShown } == false)
    }
}
