import NetworkReachabilityCore

/// The whole path of bytes from the bus, for the fuzzer and the corpus test: a stream read in chunks by the reader a
/// connection uses (each header decided before its body), each message taken decoded, written back and read again,
/// applied to both services' mirrors, and the mirrors read as details. Nothing here reaches a socket.
package enum BusBytes {
    /// What one run did.
    package struct Tally: Equatable {
        package var decoded = 0
        package var skipped = 0
        package var malformed = 0
        package var applied = 0
        /// The most bytes the reader held at once.
        package var largestBuffer = 0
    }

    /// The longest message the harness's reader takes: less than the fuzzer's longest inputs (1 MiB), so that both a
    /// message taken whole and one discarded as too long as its bytes arrive are reached.
    package static let allowance = 1 << 16

    /// Runs `bytes` through everything a reader does with what the bus sends, `chunkLength` bytes at a time; with
    /// `skippingEveryFourth`, messages whose serial is a multiple of 4 are refused from their header, as a reader
    /// refuses what it does not follow.
    package static func exercise(_ bytes: [UInt8], chunkLength: Int = 65536, skippingEveryFourth: Bool = false) -> Tally {
        var tally = Tally()
        var reader = DBusMessageReader()
        var services = [ServiceMirror.modemManager(), ServiceMirror.networkManager()]
        let allowance: DBusMessageReader.Allowance = { header in
            skippingEveryFourth && header.serial % 4 == 0 ? 0 : Self.allowance
        }
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + max(1, chunkLength))
            bytes[offset..<end].withUnsafeBytes { reader.append($0) }
            offset = end
            tally.largestBuffer = max(tally.largestBuffer, reader.bufferedCount)
            while true {
                let message: DBusMessage?
                do {
                    message = try reader.next(allowance: allowance)
                } catch {
                    tally.malformed += 1  // the stream is lost: a connection would end here
                    return finish(tally, reader, services)
                }
                guard let message else { break }
                apply(message, to: &services, &tally)
            }
            // A wanted message is held whole, an unwanted one not at all: never more than the allowance and a chunk.
            precondition(
                reader.bufferedCount <= Self.allowance + DBusMessageReader.maximumHeaderLength + chunkLength,
                "the reader holds more than one wanted message")
        }
        return finish(tally, reader, services)
    }

    private static func apply(_ message: DBusMessage, to services: inout [ServiceMirror], _ tally: inout Tally) {
        // Compared as bytes, which a NaN in the body does not upset.
        let encoded = message.encoded(serial: message.serial)
        let again = try? DBusMessage(decoding: encoded)
        precondition(again?.encoded(serial: message.serial) == encoded, "a decoded message does not survive its encoding")
        for index in services.indices {
            services[index].owner = message.sender
            if message.kind == .methodReturn {
                if (try? services[index].load(message)) != nil { tally.applied += 1 }
                // An answer to the first companion the mirror lacks, as a session would have asked for it.
                if let path = services[index].missingCompanions.min(), services[index].loadCompanion(path, message) {
                    tally.applied += 1
                }
            }
            if services[index].apply(message) { tally.applied += 1 }
            _ = services[index].dropUnnamedCompanions()
            _ = services[index].missingCompanions
        }
    }

    private static func finish(_ tally: Tally, _ reader: DBusMessageReader, _ services: [ServiceMirror]) -> Tally {
        var tally = tally
        tally.decoded = reader.tally.delivered
        tally.skipped = reader.tally.unwanted + reader.tally.oversized
        tally.malformed += reader.tally.malformed
        var modems = PropertyReader(service: "ModemManager")
        var manager = PropertyReader(service: "NetworkManager")
        for service in services {
            let devices = NetworkManagerFacts.devices(of: service.objects, reader: &manager)
            var pppLinks: [String: String] = [:]
            let joined = ModemManagerFacts.joined(
                ModemManagerFacts.modems(of: service.objects, reader: &modems), to: devices.devices, pppLinks: &pppLinks)
            for modem in joined.modems { _ = ModemManagerFacts.line(for: modem) }
            let modemLinks = Set(joined.modems.flatMap(\.interfaces))
            _ = NetworkManagerFacts.line(
                links: NetworkManagerFacts.links(of: devices.devices, modemLinks: modemLinks),
                connectivity: devices.connectivity)
        }
        return tally
    }
}
