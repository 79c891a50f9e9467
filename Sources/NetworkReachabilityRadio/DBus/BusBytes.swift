import NetworkReachability

/// The whole path of bytes from the bus, for the fuzzer and the corpus test: a stream split into messages, each
/// decoded, written back and read again, applied to both services' mirrors, and the mirrors read as details.
/// Nothing here reaches a socket.
package enum BusBytes {
    /// What one run did.
    package struct Tally: Equatable {
        package var decoded = 0
        package var malformed = 0
        package var applied = 0
    }

    /// Runs `bytes` through everything a reader does with what the bus sends.
    package static func exercise(_ bytes: [UInt8]) -> Tally {
        var tally = Tally()
        var rest = bytes[...]
        var services = [
            ServiceMirror(name: ModemManagerFacts.service, label: "ModemManager", root: ModemManagerFacts.root),
            ServiceMirror(name: NetworkManagerFacts.service, label: "NetworkManager", root: NetworkManagerFacts.root),
        ]
        while let length = try? DBusMessage.frameLength(rest), length <= rest.count {
            let frame = Array(rest.prefix(length))
            rest = rest.dropFirst(length)
            guard let message = try? DBusMessage(decoding: frame) else {
                tally.malformed += 1
                continue
            }
            tally.decoded += 1
            // Compared as bytes, which a NaN in the body does not upset.
            let encoded = message.encoded(serial: message.serial)
            let again = try? DBusMessage(decoding: encoded)
            precondition(again?.encoded(serial: message.serial) == encoded, "a decoded message does not survive its encoding")
            for index in services.indices {
                services[index].owner = message.sender
                if message.kind == .methodReturn, (try? services[index].load(message)) != nil { tally.applied += 1 }
                if services[index].apply(message) { tally.applied += 1 }
            }
        }
        var modems = PropertyReader(service: "ModemManager")
        var manager = PropertyReader(service: "NetworkManager")
        for service in services {
            _ = ModemManagerFacts.details(of: service.objects, reader: &modems)
            _ = NetworkManagerFacts.devices(of: service.objects, reader: &manager)
        }
        return tally
    }
}
