import Foundation
import Testing
import TestSupport

/// `reach status|watch --validate URL` against a real HTTP endpoint in the gateway namespace.
@Suite(.enabled(if: Command.isRoot, "NAMESPACE TESTS SKIPPED: they need root"), .ownThread)
struct ValidationCLIInNamespaceTests {
    private func object(_ line: String) -> [String: Any] {
        guard let data = line.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }

    private func status(
        in network: TestNetwork, _ server: ProbeServer, timeout: String = "1"
    ) throws -> (exit: Int32, json: [String: Any]) {
        try ReachBinary.status(in: network, ["--validate", server.probeURL, "--validation-timeout", timeout])
    }

    @Test func statusAddsTheValidationOfEachAnswer() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let server = try ProbeServer(in: network)
        defer { server.remove() }

        var (exit, json) = try status(in: network, server)
        #expect(exit == 0)
        #expect(json.string("validation") == "validated")
        #expect(json["loginURL"] is NSNull && json["validationFailure"] is NSNull)

        try server.set(.redirect)
        (exit, json) = try status(in: network, server)
        #expect(exit == 0)
        #expect(json.string("validation") == "captivePortal")
        #expect(json.string("loginURL") == server.loginURL)

        try server.set(.portalPage)
        (_, json) = try status(in: network, server)
        #expect(json.string("validation") == "captivePortal")
        #expect(json["loginURL"] is NSNull)

        try server.set(.dropped)
        (exit, json) = try status(in: network, server)
        #expect(exit == 0)  // reachable stays reachable: validation is reported, not the exit code
        #expect(json.string("validation") == "limited")
        #expect(json.string("validationFailure") == "timed out")

        try server.set(.stalledPage)  // the head comes, the body never ends: the probe's timeout still holds
        (_, json) = try status(in: network, server)
        #expect(json.string("validation") == "limited")
        #expect(json.string("validationFailure") == "timed out")
    }

    @Test func statusSaysARefusedProbeIsLimited() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let (exit, json) = try ReachBinary.status(
            in: network, ["--validate", "http://\(TestNetwork.gatewayIPv4):8081/generate_204"])
        #expect(exit == 0)
        #expect(json.string("validation") == "limited")
        #expect(json.string("validationFailure") == "connection refused")
    }

    @Test func statusSaysAProbeHostThatDoesNotResolveIsLimited() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        try network.startDNS(on: TestNetwork.gatewayIPv4, records: [])  // NXDOMAIN for every .test name
        try network.setResolverConfiguration(nameserver: TestNetwork.gatewayIPv4)
        let (exit, json) = try ReachBinary.status(in: network, ["--validate", "http://probe.test:8080/generate_204"])
        #expect(exit == 0)
        #expect(json.string("validation") == "limited")
        #expect(json.string("validationFailure") == "probe host not resolved")
    }

    @Test func noProbeIsSentWhileTheInternetIsNotReachable() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let server = try ProbeServer(in: network)
        defer { server.remove() }
        try network.ip("route", "del", "default")
        let (exit, json) = try status(in: network, server)
        #expect(exit == 1)
        #expect(json.string("validation") == "notChecked")
        #expect(server.probeCount == 0)
    }

    @Test func badValidationInputExitsWithSixtyFourAndOneLine() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        for arguments in [
            ["status", "--validate", "ftp://192.0.2.1/"], ["status", "192.0.2.1", "--validate", "http://192.0.2.1/"],
            ["watch", "192.0.2.1", "--validate", "http://192.0.2.1/"], ["status", "--validate", "http:///x"],
        ] {
            let result = try network.run([ReachBinary.path] + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.standardOutput.isEmpty)
            #expect(result.standardError.split(separator: "\n").count == 1, "\(arguments)")
        }
    }

    @Test func watchReportsEachOutcomeOnceAsTheNetworkChanges() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let server = try ProbeServer(in: network)
        defer { server.remove() }
        let output = LineCollector()
        let watcher = try network.start(
            [ReachBinary.path, "watch", "--json", "--validate", server.probeURL, "--validation-timeout", "1"],
            output: output.pipe)
        let validation = { (line: String) in self.object(line)["validation"] as? String }
        #expect(output.waitForLine { validation($0) == "validated" } != nil)

        // Each switch of the endpoint is seen after the route flaps (a change of the network re-probes).
        for (mode, expected) in [
            (ProbeServer.Mode.redirect, "captivePortal"), (.portalPage, "captivePortal"), (.dropped, "limited"),
        ] {
            try server.set(mode)
            let seen = output.lines.count
            try network.ip("route", "del", "default")
            #expect(output.waitForLine(after: seen) { self.object($0)["status"] as? String == "notReachable" } != nil)
            try network.ip("route", "add", "default", "via", TestNetwork.gatewayIPv4)
            let line = output.waitForLine(after: seen) { validation($0) == expected }
            #expect(line != nil, "\(mode)")
        }
        let lines = output.linesAfterQuiet().map(object)
        // The network's identity is part of the state: the probe's first packet resolves the gateway, which names it.
        let pairs = lines.map {
            "\($0["status"] ?? "") \($0["validation"] ?? "") \($0["loginURL"] ?? "") \(($0["network"] as? [String: Any])?["id"] ?? "-")"
        }
        // Never the same state twice in a row, and every outcome in its order.
        #expect(zip(pairs, pairs.dropFirst()).allSatisfy { $0 != $1 }, "\(pairs)")
        // Every outcome in its order (a retry 2 s after a portal may see the next mode before the route flaps,
        // so repeats are folded).
        let outcomes = lines.compactMap { line -> String? in
            guard let validation = line["validation"] as? String, validation != "notChecked" else { return nil }
            return "\(validation) \(line["loginURL"] as? String ?? "-")"
        }
        let folded = outcomes.enumerated().filter { $0.offset == 0 || outcomes[$0.offset - 1] != $0.element }.map(\.element)
        #expect(folded == ["validated -", "captivePortal \(server.loginURL)", "captivePortal -", "limited -"])
        #expect(lines.last?["validationFailure"] as? String == "timed out")
        watcher.send(SIGTERM)
        #expect(watcher.wait() == .exited(0))
    }

    /// `reach wait --validate URL`: behind a portal the internet is reachable but not validated, so the wait times
    /// out naming that; once the endpoint answers 204 it returns at once.
    @Test func waitWithValidateWaitsForTheEndpointsAnswer() throws {
        let network = try TestNetwork(ipv4: true, ipv6: false)
        defer { network.remove() }
        let server = try ProbeServer(in: network)
        defer { server.remove() }
        try server.set(.redirect)
        let portal = try network.run([
            ReachBinary.path, "wait", "--timeout", "1", "--validate", server.probeURL, "--validation-timeout", "1",
        ])
        #expect(portal.status == 1)
        #expect(portal.standardError == "reach: still waiting after 1 s: internet (not validated)\n")
        try server.set(.noContent)
        let validated = try network.run([ReachBinary.path, "wait", "--timeout", "30", "--validate", server.probeURL])
        #expect(validated.status == 0)
        #expect(validated.standardError.isEmpty)
    }
}
