import NetworkReachabilityExporter
import NetworkReachabilityKit
import NetworkReachabilityValidation
import ReachCommandLine

/// Prints a snapshot as one human line or one JSON object, flushed at once.
struct SnapshotPrinter: Sendable {
    let json: Bool

    /// Prints the snapshot; with `validation`, what the probe says too.
    func print(_ snapshot: ReachabilitySnapshot, as target: String, validation: ValidationOutcome? = nil) {
        Output.line(line(snapshot, as: target, validation: validation))
    }

    /// The line ``print(_:as:validation:)`` prints.
    func line(_ snapshot: ReachabilitySnapshot, as target: String, validation: ValidationOutcome? = nil) -> String {
        json
            ? Self.jsonLine(snapshot, target: target, validation: validation)
            : Self.humanLine(snapshot, target: target, validation: validation)
    }

    /// `internet: reachable via wiredEthernet eth0, gateway 192.0.2.1 [-R -------]`, through a VPN
    /// `internet: reachable via other tun0, VPN over cellular ppp0 (LTE, roaming) [-R t-----d]`, with a network the settings
    /// name `…, gateway 192.0.2.1, network home (not metered) [-R -------]`, or with a modem's details
    /// `internet: reachable via cellular wwan0 (LTE, 72 %, roaming), gateway 10.64.0.1 [-R t------]`, and with
    /// `--quality` `…, gateway 192.0.2.1, 3g-like (rtt 420 ms, 610 kbit/s, 37 samples) [-R -------]`
    static func humanLine(_ snapshot: ReachabilitySnapshot, target: String, validation: ValidationOutcome?) -> String {
        var line = "\(target): "
        switch snapshot.status {
        case .unknown: line += "unknown"
        case .notReachable: line += "not reachable"
        case .reachable: line += "reachable"  // "via cellular wwan0" says which kind
        }
        // A host's reason is its resolution, which the host's part of the line says in the resolver's words.
        if let reason = snapshot.path.reason, snapshot.path.host == nil { line += " (\(reason))" }
        if let interface = snapshot.path.interface { line += " via \(interface.type.rawValue) \(interface.name)" }
        if let details = snapshot.path.details?.summary, !details.isEmpty { line += " (\(details))" }
        if snapshot.path.isVPN { line += ", VPN" + Self.underlying(snapshot.path) }
        if let gateway = snapshot.path.gateway { line += ", gateway \(gateway)" }
        if let network = snapshot.path.network.flatMap(Self.settings) { line += ", \(network)" }
        if let synthesized = snapshot.path.synthesizedAddress { line += ", through NAT64 as \(synthesized)" }
        if let prefix = snapshot.path.nat64Prefixes.first { line += ", NAT64 prefix \(prefix)" }
        if let quality = snapshot.path.quality { line += ", \(quality.summary)" }
        if let host = snapshot.path.host {
            switch host.state {
            case .pending: line += " (resolution pending)"
            case .resolved: line += host.chosenAddress.map { " (address \($0))" } ?? " (no address)"
            case .failed: line += " (resolution failed: \(host.failure ?? "unknown error"))"
            case .timedOut: line += " (resolution timed out)"
            }
        }
        switch validation {
        case nil: break
        case .validated?: line += ", validated"
        case .captivePortal(let loginURL)?: line += ", captive portal" + (loginURL.map { " (log in at \($0))" } ?? "")
        case .limited(let reason)?: line += ", limited (\(reason))"
        case .notChecked?: line += ", not validated"
        }
        return line + " [\(snapshot.flags.flagsString)]"
    }

    /// ` over cellular ppp0 (LTE, roaming, metered)`: the links under a VPN (` and …` for each leg of a multipath
    /// default), with their network where the settings name it (` on network tether (metered)`), or
    /// ` over an unknown link`.
    static func underlying(_ path: ReachabilityPath) -> String {
        guard !path.underlying.isEmpty else { return " over an unknown link" }
        return " over " + path.underlying.map { link in
            var text = "\(link.interface.type.rawValue) \(link.interface.name)"
            if let details = link.details?.summary, !details.isEmpty { text += " (\(details))" }
            if let network = link.network.flatMap(Self.settings) { text += " on \(network)" }
            return text
        }.joined(separator: " and ")
    }

    /// `network home (not metered)`: what a network's settings say of it; `nil` when they say nothing (an unnamed
    /// network's id is on `reach networks` and in JSON).
    static func settings(of network: NetworkIdentity) -> String? {
        guard network.label != nil || network.isMetered != nil else { return nil }
        let metered = network.isMetered.map { $0 ? " (metered)" : " (not metered)" } ?? ""
        return "network \(network.label ?? network.summary)\(metered)"
    }

    /// One JSON object with the keys the contract names, sorted so lines are stable.
    static func jsonLine(_ snapshot: ReachabilitySnapshot, target: String, validation: ValidationOutcome? = nil) -> String {
        StatusRecord.line(snapshot, target: target, validation: validation)
    }
}
