/// One address on one interface, as the evaluation reads it. The Linux backend reads it from rtnetlink
/// (`InterfaceAddress+Netlink.swift`); a simulated network states it.
package struct InterfaceAddress: Sendable, Equatable {
    package var interfaceIndex: Int
    package var prefixLength: UInt8
    /// The interface's own address.
    package var address: IPAddress
    /// Whether the address can be used now: not tentative (duplicate address detection running) and not
    /// found a duplicate.
    package var isUsable: Bool

    /// Makes an address as a dump states it.
    package init(interfaceIndex: Int, prefixLength: UInt8, address: IPAddress, isUsable: Bool = true) {
        self.interfaceIndex = interfaceIndex
        self.prefixLength = prefixLength
        self.address = address
        self.isUsable = isUsable
    }
}
