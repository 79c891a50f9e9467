import NetworkReachabilityCore
import CNetlink

/// One entry of the kernel's neighbour table (`ip neigh`): an address on a link and, once resolved, the link-layer
/// address (a MAC) that answers for it. A gateway's entry is what a network's identity rests on.
struct Neighbour: Sendable, Equatable {
    /// The link the entry belongs to.
    var interfaceIndex: Int
    /// The neighbour's IP address.
    var address: IPAddress
    /// Its link-layer address while the kernel trusts it (a valid state: reachable, stale, delay, probe, permanent,
    /// noarp); `nil` while unresolved or failed.
    var linkLayerAddress: [UInt8]?
    /// An `RTM_DELNEIGH`: the entry left the table.
    var isDeletion: Bool

    /// Parses the payload of a neighbour message (`struct ndmsg`, then `NDA_DST` and `NDA_LLADDR`); `nil` when it is
    /// truncated, its attributes lie, or it names no IP address (a bridge's forwarding entries name none).
    init?(_ message: NetlinkMessage) {
        guard message.type == UInt16(RTM_NEWNEIGH) || message.type == UInt16(RTM_DELNEIGH),
            let index = message.payload.uint32(at: 4),
            let state = message.payload.uint16(at: 8),
            let attributes = message.attributes(afterHeaderOfLength: Int(cnl_ndmsg_length())),
            let raw = attributes.payload(UInt16(NDA_DST)),
            let address = IPAddress(networkOrder: raw)
        else { return nil }
        interfaceIndex = Int(index)
        self.address = address
        isDeletion = message.type == UInt16(RTM_DELNEIGH)
        let lladdr = attributes.payload(UInt16(NDA_LLADDR))
        linkLayerAddress =
            !isDeletion && state & cnl_nud_valid() != 0 && lladdr.map({ !$0.isEmpty && $0.count <= 32 }) == true
            ? lladdr.map(Array.init) : nil
    }

    init(interfaceIndex: Int, address: IPAddress, linkLayerAddress: [UInt8]?, isDeletion: Bool = false) {
        self.interfaceIndex = interfaceIndex
        self.address = address
        self.linkLayerAddress = linkLayerAddress
        self.isDeletion = isDeletion
    }
}
