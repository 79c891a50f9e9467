import NetworkReachability

/// What ModemManager's objects say of each modem's network interface: access technologies, signal quality and
/// strength, and 3GPP registration (roaming).
enum ModemManagerFacts {
    static let service = "org.freedesktop.ModemManager1"
    static let root = "/org/freedesktop/ModemManager1"
    static let modem = "org.freedesktop.ModemManager1.Modem"
    static let modem3gpp = "org.freedesktop.ModemManager1.Modem.Modem3gpp"
    static let signal = "org.freedesktop.ModemManager1.Modem.Signal"
    /// `MM_MODEM_PORT_TYPE_NET`: the port that is the modem's network interface (`wwan0`).
    static let networkPortType: UInt32 = 2
    /// `MMModem3gppRegistrationState` values that mean roaming: roaming, roaming SMS-only, roaming CSFB not preferred.
    static let roamingStates: Set<UInt32> = [5, 7, 10]
    /// Those that mean registered on the home network: home, home SMS-only, home CSFB not preferred.
    static let homeStates: Set<UInt32> = [1, 6, 9]
    /// The extended signal readings, newest technology first, and the figure in dBm each gives.
    static let readings = ["Nr5g", "Lte", "Umts", "Gsm", "Evdo", "Cdma"]

    /// The details of each modem's network interfaces, by interface name.
    static func details(of objects: [String: ServiceMirror.Interfaces], reader: inout PropertyReader) -> [String: LinkDetails] {
        var details: [String: LinkDetails] = [:]
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
            let names = ports.compactMap { $0 }.filter { $0.1 == Self.networkPortType }.map(\.0)
            guard !names.isEmpty else { continue }
            let technologies = reader.read("AccessTechnologies", of: modem, at: path, expecting: "uint32") { $0.uint32 }
            let quality = reader.read("SignalQuality", of: modem, at: path, expecting: "(ub)") { $0.fields?.first?.uint32 }
            var dBm: Double?
            for name in Self.readings where dBm == nil {
                let reading = reader.read(name, of: interfaces[Self.signal], at: path, expecting: "a{sv}") { $0.dictionary }
                dBm = (reading?["rssi"] ?? reading?["rsrp"])?.double.flatMap { $0.isFinite ? $0 : nil }
            }
            let registration = reader.read(
                "RegistrationState", of: interfaces[Self.modem3gpp], at: path, expecting: "uint32"
            ) { $0.uint32 }
            let roaming: Bool? =
                registration.flatMap { Self.roamingStates.contains($0) ? true : Self.homeStates.contains($0) ? false : nil }
            let modemDetails = LinkDetails(
                accessTechnologies: technologies, signal: quality.map { SignalStrength(percent: Int($0), dBm: dBm) },
                isRoaming: roaming)
            for name in names { details[name] = modemDetails }
        }
        return details
    }
}
