import NetworkReachabilityCore
import CNetlink

/// Reading an ``InterfaceAddress`` from rtnetlink: a parsed `RTM_NEWADDR` or `RTM_DELADDR`.
extension InterfaceAddress {
    /// Parses the payload of an address message; `nil` when it is truncated or its attributes lie. `IFA_FLAGS` when
    /// present, else `ifa_flags`, says whether it is usable (neither `IFA_F_TENTATIVE` nor `IFA_F_DADFAILED`).
    init?(_ message: NetlinkMessage) {
        guard message.type == UInt16(RTM_NEWADDR) || message.type == UInt16(RTM_DELADDR),
            let prefixLength = message.payload.byte(at: 1),
            let smallFlags = message.payload.byte(at: 2),
            let index = message.payload.uint32(at: 4),
            let attributes = message.attributes(afterHeaderOfLength: Int(cnl_ifaddrmsg_length())),
            let raw = attributes.payload(UInt16(IFA_LOCAL)) ?? attributes.payload(UInt16(IFA_ADDRESS)),
            let address = IPAddress(networkOrder: raw)
        else { return nil }
        let flags = attributes.payload(UInt16(IFA_FLAGS)).flatMap { $0.uint32(at: 0) } ?? UInt32(smallFlags)
        self.init(
            interfaceIndex: Int(index), prefixLength: prefixLength, address: address,
            isUsable: flags & UInt32(IFA_F_TENTATIVE | IFA_F_DADFAILED) == 0)
    }
}
