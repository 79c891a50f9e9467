import CNetlink

/// A parsed `RTM_NEWADDR`: one address on one interface.
struct AddressMessage: Sendable, Equatable {
    var interfaceIndex: Int
    var prefixLength: UInt8
    /// The interface's own address (`IFA_LOCAL`, else `IFA_ADDRESS`).
    var address: IPAddress
    /// `IFA_FLAGS` when present, else `ifa_flags`.
    var flags: UInt32

    /// Makes an address as a dump states it: for a simulated kernel, and tests.
    init(interfaceIndex: Int, prefixLength: UInt8, address: IPAddress, flags: UInt32 = 0) {
        self.interfaceIndex = interfaceIndex
        self.prefixLength = prefixLength
        self.address = address
        self.flags = flags
    }

    /// Parses the payload of an address message; `nil` when it is truncated or its attributes lie.
    init?(_ message: NetlinkMessage) {
        guard message.type == UInt16(RTM_NEWADDR) || message.type == UInt16(RTM_DELADDR),
            let prefixLength = message.payload.byte(at: 1),
            let smallFlags = message.payload.byte(at: 2),
            let index = message.payload.uint32(at: 4),
            let attributes = message.attributes(afterHeaderOfLength: Int(cnl_ifaddrmsg_length())),
            let raw = attributes.payload(UInt16(IFA_LOCAL)) ?? attributes.payload(UInt16(IFA_ADDRESS)),
            let address = IPAddress(networkOrder: raw)
        else { return nil }
        interfaceIndex = Int(index)
        self.prefixLength = prefixLength
        self.address = address
        flags = attributes.payload(UInt16(IFA_FLAGS)).flatMap { $0.uint32(at: 0) } ?? UInt32(smallFlags)
    }

    /// Whether the address can be used now: not tentative (DAD running) and not DAD-failed.
    var isUsable: Bool { flags & UInt32(IFA_F_TENTATIVE | IFA_F_DADFAILED) == 0 }
}
