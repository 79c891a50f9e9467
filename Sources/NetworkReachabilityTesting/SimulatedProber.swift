import NetworkReachabilityCore
import NetworkReachabilityValidationCore

/// Answers probes on a ``SimulatedNetwork`` from the answers a test set, at once; when the simulated internet
/// is not reachable, a probe fails as it would on a real host.
struct SimulatedProber: ConnectivityProbing {
    let network: SimulatedNetwork

    func fetch(_ url: String, accept: String?, timeout: Duration, bodyLimit: Int) async -> ProbeResponse {
        let answer = network.probeAnswer(for: url)
        guard (try? NetworkReachability(network: network).currentSnapshot().status.isReachable) == true else {
            return .failed("network unreachable")
        }
        switch answer {
        case .noContent: return .http(status: 204, location: nil, body: [])
        case .redirect(let location): return .http(status: 302, location: location, body: [])
        case .page(let page): return .http(status: 200, location: nil, body: Array(page.utf8.prefix(bodyLimit)))
        case .status(let status): return .http(status: status, location: nil, body: [])
        case .timeout: return .failed("timed out")
        case .refused, nil: return .failed("connection refused")
        case .unresolved: return .failed("probe host not resolved")
        }
    }
}
