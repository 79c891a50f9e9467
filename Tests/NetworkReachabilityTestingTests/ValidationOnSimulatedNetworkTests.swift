import NetworkReachabilityKit
import NetworkReachabilityTesting
import NetworkReachabilityValidation
import Testing
import TestSupport

/// The validator's rules, on a simulated network whose probe endpoint answers what each test sets.
struct ValidationOnSimulatedNetworkTests {
    private let probe = "http://probe.example/generate_204"

    private func onlineNetwork() throws -> SimulatedNetwork {
        let network = SimulatedNetwork()
        try network.addInterface("eth0")
        try network.addAddress("192.0.2.2/24", to: "eth0")
        try network.addDefaultRoute(via: "192.0.2.1")
        return network
    }

    private func validator(on network: SimulatedNetwork, retry: Duration = .seconds(60)) throws -> ConnectivityValidator {
        try ConnectivityValidator(
            reachability: NetworkReachability(network: network),
            configuration: ValidationConfiguration(probeURL: probe, initialRetryDelay: retry, maximumRetryDelay: retry),
            prober: network.prober)
    }

    /// Records every outcome the validator delivers, and whether its sequence ended.
    private func record(_ validator: ConnectivityValidator) -> (seen: Recorder<ValidationOutcome>, ended: Recorder<Bool>) {
        let (seen, ended) = (Recorder<ValidationOutcome>(), Recorder<Bool>())
        let updates = validator.updates
        Task {
            for await outcome in updates { seen.append(outcome) }
            ended.append(true)
        }
        return (seen, ended)
    }

    @Test func aNoContentAnswerValidatesTheNetwork() async throws {
        let network = try onlineNetwork()
        network.setProbeAnswer(.noContent, for: probe)
        let validator = try validator(on: network)
        let (seen, _) = record(validator)
        #expect(await seen.waitForAsync(2) == [.notChecked, .validated])
        #expect(validator.outcome == .validated)
    }

    @Test func eachKindOfPortalIsToldOnceWithItsLoginURL() async throws {
        let network = try onlineNetwork()
        network.setProbeAnswer(.noContent, for: probe)
        let validator = try validator(on: network)
        let (seen, ended) = record(validator)
        var expected: [ValidationOutcome] = [.notChecked, .validated]
        #expect(await seen.waitForAsync(expected.count) == expected)
        for (answer, outcome) in [
            (
                SimulatedProbeAnswer.redirect(to: "/login"),
                ValidationOutcome.captivePortal(loginURL: "http://probe.example/login")
            ),
            (.page("<html>Welcome to the hotel</html>"), .captivePortal(loginURL: nil)),
            (.timeout, .limited(reason: "timed out")),
        ] {
            network.setProbeAnswer(answer, for: probe)
            network.removeDefaultRoutes()
            expected.append(.notChecked)
            #expect(await seen.waitForAsync(expected.count) == expected)
            try network.addDefaultRoute(via: "192.0.2.1")
            expected.append(outcome)
            #expect(await seen.waitForAsync(expected.count) == expected)
        }
        validator.close()
        #expect(await ended.waitForAsync(1) == [true])
        #expect(seen.values == expected)
    }

    @Test func noProbeIsSentWhileTheNetworkIsNotReachable() async throws {
        let network = SimulatedNetwork()
        try network.addInterface("eth0")
        try network.addAddress("192.0.2.2/24", to: "eth0")
        network.setProbeAnswer(.noContent, for: probe)
        let validator = try validator(on: network, retry: .milliseconds(10))
        network.settle()
        try await Task.sleep(for: .milliseconds(100))  // ten retry delays would have passed
        #expect(network.probeCount(for: probe) == 0)
        #expect(validator.outcome == .notChecked)
        try network.addDefaultRoute(via: "192.0.2.1")
        #expect(try await validator.waitUntilValidated(timeout: .seconds(10)) == .validated)
        #expect(network.probeCount(for: probe) == 1)
    }

    @Test func aFailingProbeIsRetriedUntilTheNetworkValidates() async throws {
        let network = try onlineNetwork()
        network.setProbeAnswer(.refused, for: probe)
        let validator = try validator(on: network, retry: .milliseconds(20))
        let (seen, _) = record(validator)
        #expect(await seen.waitForAsync(2) == [.notChecked, .limited(reason: "connection refused")])
        network.setProbeAnswer(.noContent, for: probe)
        #expect(await seen.waitForAsync(3).last == .validated)  // by a retry, with no network change
        let count = network.probeCount(for: probe)
        try await Task.sleep(for: .milliseconds(100))
        #expect(network.probeCount(for: probe) == count)  // validated: no more probes until the network changes
    }

    @Test func waitingForValidationTimesOutBehindAPortal() async throws {
        let network = try onlineNetwork()
        network.setProbeAnswer(.redirect(to: "http://login.example/"), for: probe)
        let validator = try validator(on: network)
        await #expect(throws: ReachabilityError.timedOut(.milliseconds(200))) {
            try await validator.waitUntilValidated(timeout: .milliseconds(200))
        }
        #expect(validator.outcome == .captivePortal(loginURL: "http://login.example/"))
    }
}
