import NetworkReachabilityCore

/// When a job may run, as stored with it: evaluated on the live state of the library each time the queue looks.
package struct JobConditions: Codable, Sendable, Hashable {
    /// The target whose path decides: `internet`, a host name, a URL or an address, as `reach` takes it.
    package var target = "internet"
    /// The target is reachable.
    package var reachable = true
    /// The internet answered a validation probe (a captive portal or a dead uplink does not count).
    package var validated = false
    /// The path is not expensive (cellular, or marked metered).
    package var unmetered = false
    /// The path is not over a roaming modem.
    package var notRoaming = false
    /// Only through an interface of this type.
    package var requiredType: NetworkInterface.InterfaceType?
    /// Never through an interface of these types.
    package var prohibitedTypes: Set<NetworkInterface.InterfaceType> = []

    /// The internet, reachable: the conditions of a job that names none.
    package init() {}
}
