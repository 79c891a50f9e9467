import FoundationEssentials
import NetworkReachability
import NetworkReachabilityValidation

/// Prints a snapshot as one human line or one JSON object, flushed at once.
struct SnapshotPrinter: Sendable {
    let json: Bool

    /// Prints the snapshot; with `validation`, what the probe says too.
    func print(_ snapshot: ReachabilitySnapshot, as target: String, validation: ValidationOutcome? = nil) {
        Output.line(
            json
                ? Self.jsonLine(snapshot, target: target, validation: validation)
                : Self.humanLine(snapshot, target: target, validation: validation))
    }

    /// `internet: reachable via wiredEthernet eth0, gateway 192.0.2.1 [-R -------]`
    static func humanLine(_ snapshot: ReachabilitySnapshot, target: String, validation: ValidationOutcome?) -> String {
        var line = "\(target): "
        switch snapshot.status {
        case .unknown: line += "unknown"
        case .notReachable: line += "not reachable"
        case .reachable: line += "reachable"  // "via cellular wwan0" says which kind
        }
        if let interface = snapshot.path.interface { line += " via \(interface.type.rawValue) \(interface.name)" }
        if let gateway = snapshot.path.gateway { line += ", gateway \(gateway)" }
        if let synthesized = snapshot.path.synthesizedAddress { line += ", through NAT64 as \(synthesized)" }
        if let prefix = snapshot.path.nat64Prefixes.first { line += ", NAT64 prefix \(NAT64PrefixRecord(prefix).text)" }
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

    /// One JSON object with the keys the contract names, sorted so lines are stable.
    static func jsonLine(_ snapshot: ReachabilitySnapshot, target: String, validation: ValidationOutcome? = nil) -> String {
        Output.jsonLine(Record(snapshot: snapshot, target: target, validation: validation))
    }

    private struct Record: Encodable {
        struct Interface: Encodable {
            var name: String
            var index: Int
            var type: String
        }

        struct Host: Encodable {
            var name: String
            var resolution: String
            var addresses: [String]
            var chosenAddress: String?
            var failure: String?

            enum CodingKeys: String, CodingKey { case name, resolution, addresses, chosenAddress, failure }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(name, forKey: .name)
                try container.encode(resolution, forKey: .resolution)
                try container.encode(addresses, forKey: .addresses)
                try container.encode(chosenAddress, forKey: .chosenAddress)
                try container.encode(failure, forKey: .failure)
            }
        }

        enum CodingKeys: String, CodingKey {
            case target, status, connection, flags, flagsString, interface, gateway
            case supportsIPv4, supportsIPv6, isExpensive, time, host, isIPv6Only
            case nat64Prefixes, advertisedDNSServers, captivePortal, synthesizedAddress
            case validation, loginURL, validationFailure
        }

        let snapshot: ReachabilitySnapshot
        let target: String
        let validation: ValidationOutcome?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(target, forKey: .target)
            try container.encode(snapshot.status.name, forKey: .status)
            try container.encode(snapshot.status.connection?.rawValue, forKey: .connection)
            try container.encode(snapshot.flags.names, forKey: .flags)
            try container.encode(snapshot.flags.flagsString, forKey: .flagsString)
            try container.encode(
                snapshot.path.interface.map { Interface(name: $0.name, index: $0.index, type: $0.type.rawValue) },
                forKey: .interface)
            try container.encode(snapshot.path.gateway?.description, forKey: .gateway)
            try container.encode(snapshot.path.supportsIPv4, forKey: .supportsIPv4)
            try container.encode(snapshot.path.supportsIPv6, forKey: .supportsIPv6)
            try container.encode(snapshot.path.isExpensive, forKey: .isExpensive)
            try container.encode(Date.now.formatted(Self.timeFormat), forKey: .time)
            if snapshot.target == .internet {  // only the internet target speaks for the network as a whole
                try container.encode(snapshot.path.isIPv6Only, forKey: .isIPv6Only)
                try container.encode(snapshot.path.nat64Prefixes.map(NAT64PrefixRecord.init), forKey: .nat64Prefixes)
                try container.encode(snapshot.path.advertisedDNSServers.map(\.description), forKey: .advertisedDNSServers)
                try container.encode(snapshot.path.captivePortal, forKey: .captivePortal)
            }
            if let synthesized = snapshot.path.synthesizedAddress {  // only an IPv4 address reached through NAT64
                try container.encode(synthesized.description, forKey: .synthesizedAddress)
            }
            if let validation {  // only with --validate
                try container.encode(validation.name, forKey: .validation)
                if case .captivePortal(let loginURL) = validation {
                    try container.encode(loginURL, forKey: .loginURL)
                } else {
                    try container.encodeNil(forKey: .loginURL)
                }
                if case .limited(let reason) = validation {
                    try container.encode(reason, forKey: .validationFailure)
                } else {
                    try container.encodeNil(forKey: .validationFailure)
                }
            }
            if let host = snapshot.path.host {  // only host targets carry the key
                try container.encode(
                    Host(
                        name: host.name, resolution: host.state.rawValue, addresses: host.addresses.map(\.description),
                        chosenAddress: host.chosenAddress?.description, failure: host.failure),
                    forKey: .host)
            }
        }

        /// ISO 8601 in UTC with milliseconds: `2026-11-22T12:00:00.000Z`.
        private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
    }
}
