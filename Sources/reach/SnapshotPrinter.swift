import FoundationEssentials
import NetworkReachability
import NetworkReachabilityValidation

/// Prints a snapshot as one human line or one JSON object, flushed at once.
struct SnapshotPrinter: Sendable {
    let json: Bool

    /// Prints the snapshot; with `validation`, what the probe says too.
    func print(_ snapshot: ReachabilitySnapshot, as target: String, validation: ValidationOutcome? = nil) {
        if json {
            Output.line(Self.jsonLine(snapshot, target: target, validation: validation))
        } else {
            Output.line(utf8: Self.humanBytes(snapshot, target: target, validation: validation))
        }
    }

    /// The human line as UTF-8 bytes, written as they are (on `reach watch`'s path from a change to its line):
    /// `internet: reachable via wiredEthernet eth0, gateway 192.0.2.1 [-R -------]`
    ///
    /// Gathered as bytes, piece by piece: appending to a String checks grapheme boundaries at every join, a
    /// variadic list of pieces was an array allocated per call, and a local function appending to `line` checked
    /// exclusive access at run time on every call; together they cost more than the rest of a line.
    private static func humanBytes(
        _ snapshot: ReachabilitySnapshot, target: String, validation: ValidationOutcome?
    ) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(160)
        line.append(utf8: target)
        line.append(utf8: ": ")
        switch snapshot.status {
        case .unknown: line.append(utf8: "unknown")
        case .notReachable: line.append(utf8: "not reachable")
        case .reachable(.wwan): line.append(utf8: "reachable on WWAN")
        case .reachable(.ethernetOrWiFi): line.append(utf8: "reachable")
        }
        if let interface = snapshot.path.interface {
            line.append(utf8: " via ")
            line.append(utf8: interface.type.rawValue)
            line.append(utf8: " ")
            line.append(utf8: interface.name)
        }
        if let gateway = snapshot.path.gateway {
            line.append(utf8: ", gateway ")
            line.append(utf8: gateway.description)
        }
        if let synthesized = snapshot.path.synthesizedAddress {
            line.append(utf8: ", through NAT64 as ")
            line.append(utf8: synthesized.description)
        }
        if let prefix = snapshot.path.nat64Prefixes.first {
            line.append(utf8: ", NAT64 prefix ")
            line.append(utf8: NAT64PrefixRecord(prefix).text)
        }
        if let host = snapshot.path.host {
            switch host.state {
            case .pending: line.append(utf8: " (resolution pending)")
            case .resolved: line.append(utf8: host.chosenAddress.map { " (address " + $0.description + ")" } ?? " (no address)")
            case .failed: line.append(utf8: " (resolution failed: " + (host.failure ?? "unknown error") + ")")
            case .timedOut: line.append(utf8: " (resolution timed out)")
            }
        }
        switch validation {
        case nil: break
        case .validated?: line.append(utf8: ", validated")
        case .captivePortal(let loginURL)?:
            line.append(utf8: ", captive portal" + (loginURL.map { " (log in at " + $0 + ")" } ?? ""))
        case .limited(let reason)?: line.append(utf8: ", limited (" + reason + ")")
        case .notChecked?: line.append(utf8: ", not validated")
        }
        line.append(utf8: " [")
        line.append(utf8: snapshot.flags.flagsString)
        line.append(utf8: "]")
        return line
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

extension [UInt8] {
    /// Appends `piece`'s UTF-8 bytes.
    fileprivate mutating func append(utf8 piece: String) {
        var piece = piece
        piece.withUTF8 { append(contentsOf: $0) }
    }
}
