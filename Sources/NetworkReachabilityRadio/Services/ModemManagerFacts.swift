import NetworkReachabilityCore

/// What ModemManager's objects say of each modem: its data interfaces, access technologies, signal quality and
/// strength, and 3GPP registration (roaming).
enum ModemManagerFacts {
    static let service = "org.freedesktop.ModemManager1"
    static let root = "/org/freedesktop/ModemManager1"
    static let modem = "org.freedesktop.ModemManager1.Modem"
    static let modem3gpp = "org.freedesktop.ModemManager1.Modem.Modem3gpp"
    static let signal = "org.freedesktop.ModemManager1.Modem.Signal"
    static let bearer = "org.freedesktop.ModemManager1.Bearer"
    /// `MM_MODEM_PORT_TYPE_NET`: the port that is the modem's network interface (`wwan0`).
    static let networkPortType: UInt32 = 2
    /// `MM_BEARER_IP_METHOD_PPP`: a bearer whose data goes through pppd on its tty.
    static let pppMethod: UInt32 = 1
    /// `MMModem3gppRegistrationState` values that mean roaming: roaming, roaming SMS-only, roaming CSFB not preferred.
    static let roamingStates: Set<UInt32> = [5, 7, 10]
    /// Those that mean registered on the home network: home, home SMS-only, home CSFB not preferred.
    static let homeStates: Set<UInt32> = [1, 6, 9]
    /// The extended signal readings, newest technology first, and the figure in dBm each gives.
    static let readings = ["Nr5g", "Lte", "Umts", "Gsm", "Evdo", "Cdma"]

    /// One modem as the summary and the details need it.
    struct Modem: Equatable {
        /// Its object path.
        var path: String
        /// The interfaces that carry its data: its net ports, the interface of each connected bearer that names one
        /// (`wwan0.1` for a multiplexed modem), and the link of each NetworkManager modem device that drives it
        /// (``joined(_:to:pppLinks:)``: `ppp0` for an AT modem, whose bearer names only its tty).
        var interfaces: [String]
        var details: LinkDetails
        /// `MMModem3gppRegistrationState`, when the modem has a 3GPP interface.
        var registration: UInt32?
        /// The tty of its connected PPP bearer (`ttyUSB0`), whose link only NetworkManager names.
        var pppPort: String?

        /// The number ModemManager gives it (`mmcli -m 0`): the last part of its path.
        var number: String { path.split(separator: "/").last.map(String.init) ?? path }
    }

    /// Every modem, in the order of their paths.
    static func modems(of objects: [String: ServiceMirror.Interfaces], reader: inout PropertyReader) -> [Modem] {
        var modems: [Modem] = []
        for (path, interfaces) in objects.sorted(by: { $0.key < $1.key }) {
            guard let modem = interfaces[Self.modem] else { continue }
            let ports =
                reader.read("Ports", of: modem, at: path, expecting: "a(su)") { value in
                    value.elements?.map { port -> (String, UInt32)? in
                        guard let fields = port.fields, fields.count == 2, let name = fields[0].string,
                            let type = fields[1].uint32
                        else { return nil }
                        return (name, type)
                    }
                } ?? []
            let bearers = reader.read("Bearers", of: modem, at: path, expecting: "array (o)", Self.objectPaths) ?? []
            var names = ports.compactMap { $0 }.filter { $0.1 == Self.networkPortType }.map(\.0)
            var pppPort: String?
            for bearer in bearers {
                let properties = objects[bearer]?[Self.bearer]
                let connected = reader.read("Connected", of: properties, at: bearer, expecting: "boolean") { $0.bool }
                let name = reader.read("Interface", of: properties, at: bearer, expecting: "string") { $0.string }
                // A PPP bearer's interface is the tty pppd runs on (`ttyUSB0`), not a network interface
                let method = reader.read("Ip4Config", of: properties, at: bearer, expecting: "a{sv}") { $0.dictionary }?[
                    "method"]?.uint32
                guard connected == true, let name, !name.isEmpty else { continue }
                if method == Self.pppMethod {
                    pppPort = name
                } else if !names.contains(name) {
                    names.append(name)
                }
            }
            let technologies = reader.read("AccessTechnologies", of: modem, at: path, expecting: "uint32") { $0.uint32 }
            let reading = reader.read("SignalQuality", of: modem, at: path, expecting: "(ub)") {
                value -> (quality: UInt32, isRecent: Bool)? in
                guard let fields = value.fields, fields.count == 2, let quality = fields[0].uint32, let recent = fields[1].bool
                else { return nil }
                return (quality, recent)
            }
            // A quality ModemManager could not poll lately (a single AT port in data mode), one beside no access
            // technology (a modem disabled, searching or being removed: it zeroes both), and 0, its value for none
            // (kept, and called recent, from a disable to the next poll, which a connected single port never makes),
            // are not measures
            let quality = reading.flatMap { $0.isRecent && $0.quality > 0 && technologies != 0 ? $0.quality : nil }
            var dBm: Double?
            for name in Self.readings where dBm == nil && quality != nil {
                let reading = reader.read(name, of: interfaces[Self.signal], at: path, expecting: "a{sv}") { $0.dictionary }
                dBm = (reading?["rssi"] ?? reading?["rsrp"])?.double.flatMap { $0.isFinite ? $0 : nil }
            }
            let registration = reader.read(
                "RegistrationState", of: interfaces[Self.modem3gpp], at: path, expecting: "uint32"
            ) { $0.uint32 }
            let roaming: Bool? =
                registration.flatMap { Self.roamingStates.contains($0) ? true : Self.homeStates.contains($0) ? false : nil }
            modems.append(
                Modem(
                    path: path, interfaces: names,
                    details: LinkDetails(
                        accessTechnologies: technologies, signal: quality.map { SignalStrength(percent: Int($0), dBm: dBm) },
                        isRoaming: roaming),
                    registration: registration, pppPort: pppPort))
        }
        return modems
    }

    /// `modems`, each with the links of the NetworkManager modem devices whose `Udi` is its path: NetworkManager
    /// knows the link pppd made (`ppp0`), which ModemManager never learns.
    ///
    /// A modem whose PPP bearer is connected keeps the link its tty's PPP last ran over (`pppLinks`, tty → link,
    /// which this keeps) while NetworkManager does not name one: NetworkManager names it a moment after the link is
    /// up, and not at all while it restarts, though pppd and the link stay. Returns whether a connected PPP bearer's
    /// link is not known at all (its first connect, before NetworkManager names the link).
    static func joined(
        _ modems: [Modem], to devices: [NetworkManagerFacts.Device], pppLinks: inout [String: String]
    ) -> (modems: [Modem], isPPPLinkUnknown: Bool) {
        var isPPPLinkUnknown = false
        let joined = modems.map { modem in
            var joined = modem
            let named = devices.filter { $0.carriesModemData && $0.udi == modem.path }.map(\.link)
            for link in named where !joined.interfaces.contains(link) { joined.interfaces.append(link) }
            guard let port = modem.pppPort else { return joined }
            if let link = named.first {
                pppLinks[port] = link
            } else if let link = pppLinks[port] {
                if !joined.interfaces.contains(link) { joined.interfaces.append(link) }
            } else {
                isPPPLinkUnknown = true
            }
            return joined
        }
        return (joined, isPPPLinkUnknown)
    }

    /// The bearers the modems name (`Modem.Bearers`): ModemManager exports them beside its object manager, not in it.
    static func bearerPaths(of objects: [String: ServiceMirror.Interfaces]) -> Set<String> {
        Set(objects.values.flatMap { interfaces in interfaces[Self.modem]?["Bearers"].flatMap(Self.objectPaths) ?? [] })
    }

    /// An array of object paths (`ao`) as its paths.
    private static func objectPaths(_ value: DBusValue) -> [String]? {
        guard case .array(.objectPath, let elements) = value.unwrapped else { return nil }
        return elements.compactMap(\.string)
    }

    /// A registration state in words: `home`, `roaming`, `searching`…
    static func words(forRegistration state: UInt32) -> String {
        switch state {
        case 0: "idle"
        case 1, 6, 9: "home"
        case 2: "searching"
        case 3: "denied"
        case 5, 7, 10: "roaming"
        case 8: "emergency only"
        case 11: "attached (RLOS)"
        default: "unknown"
        }
    }

    /// The summary's line for a modem: `modem 0 on wwan0: LTE, 72 %, registration home`.
    static func line(for modem: Modem) -> String {
        var parts: [String] = []
        if let technology = modem.details.radioTechnology { parts.append(technology.description) }
        if let signal = modem.details.signal { parts.append(signal.description) }
        if let registration = modem.registration { parts.append("registration \(words(forRegistration: registration))") }
        let interfaces = modem.interfaces.isEmpty ? " (no data interface)" : " on \(modem.interfaces.joined(separator: ", "))"
        return "modem \(modem.number)\(interfaces): \(parts.isEmpty ? "nothing known yet" : parts.joined(separator: ", "))"
    }
}
