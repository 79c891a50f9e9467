import NetworkReachabilityCore

/// Why a change to a ``SimulatedNetwork`` was refused: the same mistakes `ip` refuses on a real host.
public enum SimulatedNetworkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not a valid address, host name or NAT64 prefix; the parser's error says why.
    case invalidValue(ReachabilityError)
    /// The prefix length after `/` is not a number the family allows.
    case invalidPrefixLength(String)
    /// An interface name must be 1 to 15 bytes, without `/`, `:` or white space (as Linux requires).
    case invalidInterfaceName(String)
    /// An interface of that name exists already.
    case interfaceExists(String)
    /// No interface has that name.
    case unknownInterface(String)
    /// The interface is down, so no route can be added through it (`Network is down`).
    case interfaceDown(String)
    /// The interface does not have that address.
    case noSuchAddress(String, interface: String)
    /// A route's destination and gateway differ in family.
    case familyMismatch(destination: String, gateway: String)
    /// No interface's prefix holds the gateway, so the kernel would not know where to send to it.
    case unreachableGateway(String)
    /// A route needs a gateway, an interface, or both.
    case missingNextHop(String)
    /// No route has that destination (and metric).
    case noSuchRoute(String)

    /// One line that says what went wrong.
    public var description: String {
        switch self {
        case .invalidValue(let error): "\(error)"
        case .invalidPrefixLength(let text): "invalid prefix length in '\(text)'"
        case .invalidInterfaceName(let name): "invalid interface name '\(name)': 1 to 15 bytes without '/', ':' or spaces"
        case .interfaceExists(let name): "interface \(name) exists already"
        case .unknownInterface(let name): "no interface is called \(name)"
        case .interfaceDown(let name): "interface \(name) is down"
        case .noSuchAddress(let address, let interface): "interface \(interface) has no address \(address)"
        case .familyMismatch(let destination, let gateway): "destination \(destination) and gateway \(gateway) differ in family"
        case .unreachableGateway(let gateway): "gateway \(gateway) is on no interface's prefix"
        case .missingNextHop(let destination): "route to \(destination) needs a gateway or an interface"
        case .noSuchRoute(let destination): "no route to \(destination)"
        }
    }
}
