import NetworkReachabilityCore

/// The link-layer addresses of the gateways that networks' identities rest on, as the subscription last learned
/// them from the kernel's neighbour table and its notifications.
///
/// A gateway's address is kept after its entry leaves the table (the kernel drops entries nobody used for a while,
/// and marks one failed while the gateway does not answer): the network stayed the same. It is forgotten when its
/// link goes down or away, and replaced when the kernel resolves the gateway to another address: that is another
/// network. Other neighbours are followed only while they are in the table.
struct NeighbourBook {
    /// A neighbour: its link and address.
    struct Key: Hashable {
        var interfaceIndex: Int
        var address: IPAddress
    }

    private var addresses: [Key: [UInt8]] = [:]
    /// The gateways identities rested on: their changes are the ones that matter.
    private var gateways: Set<Key> = []

    /// The table as a dump found it.
    init(_ neighbours: [Neighbour] = []) {
        for neighbour in neighbours { _ = apply(neighbour) }
    }

    /// The table as a dump after an overflow found it, keeping what this book learned of the gateways it follows
    /// whose entries the kernel has dropped: the overflow lost notifications, not the network.
    func refreshed(with neighbours: [Neighbour]) -> NeighbourBook {
        var book = NeighbourBook(neighbours)
        book.gateways = gateways
        for key in gateways where book.addresses[key] == nil { book.addresses[key] = addresses[key] }
        return book
    }

    /// The link-layer address last learned for `address` on the link with `interfaceIndex`.
    func linkAddress(of address: IPAddress, onInterface interfaceIndex: Int) -> [UInt8]? {
        addresses[Key(interfaceIndex: interfaceIndex, address: address.withoutZone)]
    }

    /// Follows `address` on the link as a gateway an identity rests on.
    mutating func watch(_ address: IPAddress, onInterface interfaceIndex: Int) {
        gateways.insert(Key(interfaceIndex: interfaceIndex, address: address.withoutZone))
    }

    /// Applies a neighbour notification; returns whether a watched gateway's link-layer address changed (learned,
    /// or another than the one kept).
    mutating func apply(_ neighbour: Neighbour) -> Bool {
        let key = Key(interfaceIndex: neighbour.interfaceIndex, address: neighbour.address.withoutZone)
        guard let linkAddress = neighbour.linkLayerAddress else {
            // Gone or unresolved: a gateway keeps what was learned, another neighbour is dropped.
            if neighbour.isDeletion && !gateways.contains(key) { addresses[key] = nil }
            return false
        }
        guard addresses[key] != linkAddress else { return false }
        addresses[key] = linkAddress
        return gateways.contains(key)
    }

    /// Forgets everything learned on the link with `interfaceIndex`: it went down or away, and may come back on
    /// another network.
    mutating func forget(interfaceIndex: Int) {
        addresses = addresses.filter { $0.key.interfaceIndex != interfaceIndex }
        gateways = gateways.filter { $0.interfaceIndex != interfaceIndex }
    }
}
