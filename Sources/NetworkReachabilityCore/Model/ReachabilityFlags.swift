/// Apple's `SCNetworkReachabilityFlags`, with the same names and bit values, set from Linux facts.
///
/// Which kernel fact sets each flag is the package's contract; see the Semantics article.
/// A set `reachable` flag says a packet sent now can leave this host toward the target. It never
/// promises that the target answers, so it is no reason to skip a request: send it and handle the error.
public struct ReachabilityFlags: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The raw bits, equal to Apple's.
    public let rawValue: UInt32

    /// Makes flags from Apple-compatible raw bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The output interface is point-to-point (`IFF_POINTOPOINT`: PPP, tun-style links).
    public static let transientConnection = ReachabilityFlags(rawValue: 1 << 0)
    /// The kernel's route lookup returns a unicast or local route: the configuration can carry the packet.
    public static let reachable = ReachabilityFlags(rawValue: 1 << 1)
    /// With `reachable`: the output interface is not up with a lower link (no carrier, not associated).
    public static let connectionRequired = ReachabilityFlags(rawValue: 1 << 2)
    /// Never set on Linux (the kernel does no on-demand dialing); kept for API parity.
    public static let connectionOnTraffic = ReachabilityFlags(rawValue: 1 << 3)
    /// With `connectionRequired`: the interface is operstate `dormant` (e.g. waiting for 802.1X).
    public static let interventionRequired = ReachabilityFlags(rawValue: 1 << 4)
    /// Never set on Linux; kept for API parity.
    public static let connectionOnDemand = ReachabilityFlags(rawValue: 1 << 5)
    /// The destination is one of this host's addresses (route type `local`, loopback included).
    public static let isLocalAddress = ReachabilityFlags(rawValue: 1 << 16)
    /// The destination is on-link or local: the route has no gateway.
    public static let isDirect = ReachabilityFlags(rawValue: 1 << 17)
    /// The output interface is cellular.
    public static let isWWAN = ReachabilityFlags(rawValue: 1 << 18)

    /// The flags only Apple's on-demand connections set, `connectionOnTraffic` and `connectionOnDemand`: no backend of
    /// this package sets them; they exist so that code written against Apple's flags compiles.
    public static let appleOnly: ReachabilityFlags = [.connectionOnTraffic, .connectionOnDemand]

    /// Every flag with its Swift name, in bit order.
    public static let named: [(flag: ReachabilityFlags, name: String)] = [
        (.transientConnection, "transientConnection"),
        (.reachable, "reachable"),
        (.connectionRequired, "connectionRequired"),
        (.connectionOnTraffic, "connectionOnTraffic"),
        (.interventionRequired, "interventionRequired"),
        (.connectionOnDemand, "connectionOnDemand"),
        (.isLocalAddress, "isLocalAddress"),
        (.isDirect, "isDirect"),
        (.isWWAN, "isWWAN"),
    ]

    /// The Swift names of the flags that are set, in bit order, e.g. `["reachable", "isDirect"]`.
    public var names: [String] { Self.named.filter { contains($0.flag) }.map(\.name) }

    /// The flags in the layout of Apple's `PrintReachabilityFlags`: 10 characters, `W` `R`, a space,
    /// then `t` `c` `C` `i` `D` `l` `d`, each letter where its flag is set and `-` where not.
    ///
    /// A destination behind a gateway on Ethernet is `-R -------`; no route at all is `-- -------`.
    public var flagsString: String {
        let marks = Self.marks
        // Ten ASCII bytes, written in place: a String keeps up to 15 inline, so this allocates nothing.
        return String(unsafeUninitializedCapacity: marks.count) { text in
            for (position, (flag, letter)) in marks.enumerated() {
                text[position] = UInt8(ascii: flag.isEmpty || contains(flag) ? letter : "-")
            }
            return marks.count
        }
    }

    /// Each flag's letter in ``flagsString``, in order; the empty set stands for the space.
    private static let marks: [(ReachabilityFlags, Unicode.Scalar)] = [
        (.isWWAN, "W"), (.reachable, "R"), ([], " "), (.transientConnection, "t"), (.connectionRequired, "c"),
        (.connectionOnTraffic, "C"), (.interventionRequired, "i"), (.connectionOnDemand, "D"),
        (.isLocalAddress, "l"), (.isDirect, "d"),
    ]

    /// Same as ``flagsString``.
    public var description: String { flagsString }
}

extension ReachabilityFlags: Codable {
    /// Decodes the names ``names`` lists, such as `["reachable", "isDirect"]`; an unknown name is an error.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var flags = ReachabilityFlags()
        while !container.isAtEnd {
            let name = try container.decode(String.self)
            guard let flag = Self.named.first(where: { $0.name == name })?.flag else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "no flag is called \(name)")
            }
            flags.insert(flag)
        }
        self = flags
    }

    /// Encodes the flags as their ``names``, in bit order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for name in names { try container.encode(name) }
    }
}
