import NetworkReachabilityCore
import CNetlink

/// Reading a ``Link`` from rtnetlink: a parsed `RTM_NEWLINK` or `RTM_DELLINK`.
extension Link {
    /// Parses the payload of a link message; `nil` when it is truncated or its attributes lie.
    init?(_ message: NetlinkMessage) {
        guard message.type == UInt16(RTM_NEWLINK) || message.type == UInt16(RTM_DELLINK),
            let hardwareType = message.payload.uint16(at: 2),
            let index = message.payload.int32(at: 4),
            let flags = message.payload.uint32(at: 8),
            let attributes = message.attributes(afterHeaderOfLength: Int(cnl_ifinfomsg_length())),
            let name = attributes.payload(UInt16(IFLA_IFNAME)).map(\.cString)
        else { return nil }
        let state = attributes.payload(UInt16(IFLA_OPERSTATE)).flatMap { $0.byte(at: 0) } ?? cnl_if_oper_unknown()
        self.init(
            index: Int(index), name: name, hardwareType: hardwareType, flags: flags,
            operationalState: state,
            kind: attributes.payload(UInt16(IFLA_LINKINFO))
                .flatMap { NetlinkAttribute.parse($0) }
                .flatMap { $0.payload(UInt16(IFLA_INFO_KIND)) }
                .map(\.cString))
        isDeletion = message.type == UInt16(RTM_DELLINK)
    }

    /// A link whose `ifi_flags` are `flags` (`IFF_UP`, `IFF_LOWER_UP`, `IFF_POINTOPOINT`, `IFF_LOOPBACK`) and whose
    /// `IFLA_OPERSTATE` is `operationalState`.
    init(index: Int, name: String, hardwareType: UInt16, flags: UInt32, operationalState: UInt8, kind: String?) {
        self.init(
            index: index, name: name, hardwareType: hardwareType, isUp: flags & cnl_iff_up() != 0,
            hasCarrier: flags & cnl_iff_lower_up() != 0, isPointToPoint: flags & cnl_iff_pointopoint() != 0,
            isLoopback: flags & cnl_iff_loopback() != 0,
            operationalState: OperationalState(rawValue: operationalState) ?? .unknown, kind: kind)
    }
}
