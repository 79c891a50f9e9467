import CNetlink

/// A parsed `RTM_NEWLINK`/`RTM_DELLINK`: what the evaluation needs to know of an interface.
struct LinkMessage: Sendable, Equatable {
    var index: Int
    var name: String
    /// `ifi_type`: the `ARPHRD_*` hardware type.
    var hardwareType: UInt16
    /// `ifi_flags`: `IFF_UP`, `IFF_LOWER_UP`, `IFF_POINTOPOINT`, `IFF_LOOPBACK`…
    var flags: UInt32
    /// `IFLA_OPERSTATE` (RFC 2863), `IF_OPER_UNKNOWN` when absent.
    var operationalState: UInt8
    /// `IFLA_INFO_KIND` inside `IFLA_LINKINFO`, e.g. `veth`, `tun`.
    var kind: String?
    /// Whether the message announced the link's removal.
    var isDeletion: Bool

    /// Parses the payload of a link message; `nil` when it is truncated or its attributes lie.
    init?(_ message: NetlinkMessage) {
        guard message.type == UInt16(RTM_NEWLINK) || message.type == UInt16(RTM_DELLINK),
            let hardwareType = message.payload.uint16(at: 2),
            let index = message.payload.int32(at: 4),
            let flags = message.payload.uint32(at: 8),
            let attributes = message.attributes(afterHeaderOfLength: Int(cnl_ifinfomsg_length())),
            let name = attributes.payload(UInt16(IFLA_IFNAME)).map(\.cString)
        else { return nil }
        self.index = Int(index)
        self.name = name
        self.hardwareType = hardwareType
        self.flags = flags
        operationalState = attributes.payload(UInt16(IFLA_OPERSTATE)).flatMap { $0.byte(at: 0) } ?? cnl_if_oper_unknown()
        kind = attributes.payload(UInt16(IFLA_LINKINFO))
            .flatMap { NetlinkAttribute.parse($0) }
            .flatMap { $0.payload(UInt16(IFLA_INFO_KIND)) }
            .map(\.cString)
        isDeletion = message.type == UInt16(RTM_DELLINK)
    }

    init(index: Int, name: String, hardwareType: UInt16, flags: UInt32, operationalState: UInt8, kind: String?) {
        self.index = index
        self.name = name
        self.hardwareType = hardwareType
        self.flags = flags
        self.operationalState = operationalState
        self.kind = kind
        isDeletion = false
    }

    /// Whether the link is administratively up (`IFF_UP`).
    var isUp: Bool { flags & cnl_iff_up() != 0 }

    /// Whether the link has carrier (`IFF_LOWER_UP`).
    var hasCarrier: Bool { flags & cnl_iff_lower_up() != 0 }

    /// The operational state's RFC 2863 name, as ``InterfaceStatus/operationalState`` gives it.
    var operationalStateName: String {
        switch Int32(operationalState) {
        case 1: "notPresent"
        case 2: "down"
        case 3: "lowerLayerDown"
        case 4: "testing"
        case 5: "dormant"
        case 6: "up"
        default: "unknown"
        }
    }

    /// `IFF_UP` and `IFF_LOWER_UP`, with operstate up or unknown: packets can leave now.
    var isReadyToCarry: Bool {
        let up = cnl_iff_up() | cnl_iff_lower_up()
        return flags & up == up
            && (operationalState == cnl_if_oper_up() || operationalState == cnl_if_oper_unknown())
    }

    /// Operstate `dormant`: the link waits for something such as 802.1X authentication.
    var isDormant: Bool { operationalState == cnl_if_oper_dormant() }

    /// `IFF_POINTOPOINT`.
    var isPointToPoint: Bool { flags & cnl_iff_pointopoint() != 0 }

    /// `IFF_LOOPBACK`.
    var isLoopback: Bool { flags & cnl_iff_loopback() != 0 }
}
