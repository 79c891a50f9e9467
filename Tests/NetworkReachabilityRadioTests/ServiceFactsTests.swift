import NetworkReachabilityKit
import Testing

@testable import NetworkReachabilityRadio

/// How the services' objects, laid out as the real daemons lay them out, become each link's facts: which
/// NetworkManager device speaks for a link, how a PPP modem's facts reach `ppp0`, and which signal is a measure.
struct ServiceFactsTests {
    private static let modemPath = "/org/freedesktop/ModemManager1/Modem/0"

    /// A NetworkManager device's object, as NetworkManager 1.42 exports it.
    private static func device(
        _ interface: String, ip: String = "", type: UInt32, udi: String = "", metered: UInt32,
        connectivity: (ip4: UInt32, ip6: UInt32)? = nil
    ) -> ServiceMirror.Interfaces {
        var properties: ServiceMirror.Properties = [
            "Interface": .string(interface), "IpInterface": .string(ip), "DeviceType": .uint32(type), "Udi": .string(udi),
            "Metered": .uint32(metered), "State": .uint32(100),
        ]
        if let connectivity {
            properties["Ip4Connectivity"] = .uint32(connectivity.ip4)
            properties["Ip6Connectivity"] = .uint32(connectivity.ip6)
        }
        return [NetworkManagerFacts.device: properties]
    }

    private static func links(_ objects: [String: ServiceMirror.Interfaces]) -> [String: LinkDetails] {
        var reader = PropertyReader(service: "NetworkManager")
        return NetworkManagerFacts.links(of: NetworkManagerFacts.devices(of: objects, reader: &reader).devices)
    }

    @Test func theModemDeviceSpeaksForPPP0OverTheExternalDeviceWhateverTheirPaths() {
        // NetworkManager's modem device (guess-yes) and the external device it makes for ppp0 at each connect
        // (guess-no), whose path sorts before or after the modem's as text
        for external in ["/org/freedesktop/NetworkManager/Devices/3", "/org/freedesktop/NetworkManager/Devices/10"] {
            let objects = [
                "/org/freedesktop/NetworkManager/Devices/2": Self.device(
                    "ttyUSB0", ip: "ppp0", type: NetworkManagerFacts.modemType, udi: Self.modemPath, metered: 3,
                    connectivity: (4, 1)),
                external: Self.device("ppp0", ip: "ppp0", type: 16, metered: 4, connectivity: (3, 3)),
            ]
            let ppp0 = Self.links(objects)["ppp0"]
            #expect(ppp0?.isMetered == true && ppp0?.systemConnectivity == .full, "external device at \(external)")
        }
    }

    @Test func twoDevicesThatDisagreeAboutMeteredMakeTheLinkMetered() {
        for (first, second) in [(UInt32(2), UInt32(1)), (1, 2), (4, 3)] {
            let objects = [
                "/org/freedesktop/NetworkManager/Devices/4": Self.device("eth0", type: 1, metered: first),
                "/org/freedesktop/NetworkManager/Devices/5": Self.device("eth0", type: 1, metered: second),
            ]
            #expect(Self.links(objects)["eth0"]?.isMetered == true)
        }
        let unknown = ["/org/freedesktop/NetworkManager/Devices/4": Self.device("eth0", type: 1, metered: 0)]
        #expect(Self.links(unknown)["eth0"]?.isMetered == nil)
    }

    @Test func eachLinkHasItsOwnConnectivityTheBetterOfItsFamiliesAndTheManagersOnlyWithoutIt() {
        var objects = [
            "/org/freedesktop/NetworkManager/Devices/4": Self.device("eth0", type: 1, metered: 2, connectivity: (2, 0)),
            "/org/freedesktop/NetworkManager/Devices/5": Self.device("wlan0", type: 2, metered: 2, connectivity: (3, 4)),
            "/org/freedesktop/NetworkManager/Devices/6": Self.device("usb0", type: 1, metered: 2),
        ]
        objects[NetworkManagerFacts.managerPath] = [NetworkManagerFacts.manager: ["Connectivity": .uint32(4)]]
        let links = Self.links(objects)
        // A portal on eth0 is not hidden by full connectivity elsewhere
        #expect(links["eth0"]?.systemConnectivity == .portal)
        #expect(links["wlan0"]?.systemConnectivity == .full)
        // A device without the properties (NetworkManager before 1.16) has the manager's
        #expect(links["usb0"]?.systemConnectivity == .full)
    }

    /// A modem with one AT port, on LTE at `quality`, whose bearer is connected over PPP on `ttyUSB0`.
    private static func pppModem(technologies: UInt32 = 1 << 14, quality: UInt32 = 60, recent: Bool = true)
        -> [String: ServiceMirror.Interfaces]
    {
        let bearer = "/org/freedesktop/ModemManager1/Bearer/0"
        let ip4Config = DBusValue.array(
            element: .dictionaryEntry(key: .string, value: .variant),
            [.dictionaryEntry(.string("method"), .variant(.uint32(ModemManagerFacts.pppMethod)))])
        return [
            Self.modemPath: [
                ModemManagerFacts.modem: [
                    "Ports": .array(
                        element: .structure([.string, .uint32]), [.structure([.string("ttyUSB0"), .uint32(3)])]),
                    "Bearers": .array(element: .objectPath, [.objectPath(bearer)]),
                    "AccessTechnologies": .uint32(technologies),
                    "SignalQuality": .structure([.uint32(quality), .boolean(recent)]),
                ]
            ],
            bearer: [
                ModemManagerFacts.bearer: [
                    "Connected": .boolean(true), "Interface": .string("ttyUSB0"), "Ip4Config": ip4Config,
                ]
            ],
        ]
    }

    private static func modems(_ objects: [String: ServiceMirror.Interfaces]) -> [ModemManagerFacts.Modem] {
        var reader = PropertyReader(service: "ModemManager")
        return ModemManagerFacts.modems(of: objects, reader: &reader)
    }

    @Test func aPPPModemsFactsReachTheLinkNetworkManagersModemDeviceNamesNotItsTty() {
        let modem = Self.modems(Self.pppModem())
        #expect(modem.first?.interfaces == [])  // the bearer names its tty, which is no network interface
        var reader = PropertyReader(service: "NetworkManager")
        let devices = NetworkManagerFacts.devices(
            of: [
                "/org/freedesktop/NetworkManager/Devices/2": Self.device(
                    "ttyUSB0", ip: "ppp0", type: NetworkManagerFacts.modemType, udi: Self.modemPath, metered: 3),
                "/org/freedesktop/NetworkManager/Devices/3": Self.device(
                    "ppp1", ip: "ppp1", type: NetworkManagerFacts.modemType, udi: "/org/freedesktop/ModemManager1/Modem/1",
                    metered: 3),
            ], reader: &reader
        ).devices
        var pppLinks: [String: String] = [:]
        let joined = ModemManagerFacts.joined(modem, to: devices, pppLinks: &pppLinks)
        #expect(joined.modems.first?.interfaces == ["ppp0"] && !joined.isPPPLinkUnknown)
        #expect(ModemManagerFacts.line(for: joined.modems[0]) == "modem 0 on ppp0: LTE, 60 %")
        #expect(pppLinks == ["ttyUSB0": "ppp0"])
    }

    @Test func aConnectedPPPModemKeepsItsLinkWhileNetworkManagerDoesNotNameItAndSaysWhenNoneIsKnown() {
        let modem = Self.modems(Self.pppModem())
        // Before NetworkManager ever named the link (a first connect): the link is not known
        var pppLinks: [String: String] = [:]
        let first = ModemManagerFacts.joined(modem, to: [], pppLinks: &pppLinks)
        #expect(first.modems.first?.interfaces == [] && first.isPPPLinkUnknown)
        // Once named, the tty's link is kept while NetworkManager is gone or names none (it restarts; a reconnect)
        pppLinks = ["ttyUSB0": "ppp0"]
        let kept = ModemManagerFacts.joined(modem, to: [], pppLinks: &pppLinks)
        #expect(kept.modems.first?.interfaces == ["ppp0"] && !kept.isPPPLinkUnknown)
    }

    @Test func ofALinkThatCarriesAModemsDataOnlyAModemDeviceSaysNotMetered() {
        var reader = PropertyReader(service: "NetworkManager")
        // The external device NetworkManager makes for ppp0 (guess-no), alone: NetworkManager restarting
        let external = NetworkManagerFacts.devices(
            of: ["/org/freedesktop/NetworkManager/Devices/12": Self.device("ppp0", ip: "ppp0", type: 16, metered: 4)],
            reader: &reader
        ).devices
        #expect(NetworkManagerFacts.links(of: external, modemLinks: ["ppp0"])["ppp0"]?.isMetered == nil)
        #expect(NetworkManagerFacts.links(of: external)["ppp0"]?.isMetered == false)  // a link that is no modem's
        // While a PPP bearer's link is unnamed (NetworkManager restarted and left pppd's ppp0 as an external device),
        // a link of an unclear kind is taken as the modem's; an Ethernet link is not
        let restarted = NetworkManagerFacts.devices(
            of: [
                "/org/freedesktop/NetworkManager/Devices/1": Self.device("ppp0", ip: "ppp0", type: 16, metered: 4),
                "/org/freedesktop/NetworkManager/Devices/2": Self.device("eth0", ip: "eth0", type: 1, metered: 4),
            ],
            reader: &reader
        ).devices
        let unnamed = NetworkManagerFacts.links(of: restarted, unnamedAreModems: true)
        #expect(unnamed["ppp0"]?.isMetered == nil && unnamed["eth0"]?.isMetered == false)
        // Another device's yes counts (a modem NetworkManager does not manage, on a link it says is metered)
        let saysMetered = NetworkManagerFacts.devices(
            of: ["/org/freedesktop/NetworkManager/Devices/3": Self.device("wwan0", ip: "wwan0", type: 14, metered: 3)],
            reader: &reader
        ).devices
        #expect(NetworkManagerFacts.links(of: saysMetered, modemLinks: ["wwan0"])["wwan0"]?.isMetered == true)
    }

    @Test func aSignalThatIsNotRecentOrBesideNoTechnologyIsNoMeasure() {
        #expect(Self.modems(Self.pppModem()).first?.details.signal?.percent == 60)
        // ModemManager could not poll it lately: a single AT port is in data mode
        #expect(Self.modems(Self.pppModem(recent: false)).first?.details.signal == nil)
        // A modem being removed zeroes both a second before it goes
        let removed = Self.modems(Self.pppModem(technologies: 0, quality: 0)).first?.details
        #expect(removed?.signal == nil && removed?.radioTechnology == nil)
        // A disabled modem's 0, called recent until the next poll, which a connected single port never makes
        #expect(Self.modems(Self.pppModem(quality: 0)).first?.details.signal == nil)
    }
}
