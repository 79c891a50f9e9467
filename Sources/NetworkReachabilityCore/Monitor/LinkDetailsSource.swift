/// Where ``LinkDetails`` come from: facts about interfaces that the routing backend does not know (a modem manager,
/// a network manager, a simulated network's settings).
///
/// A monitor with a source gives every path the details of the interface its route uses, and gives the targets whose
/// interface's details changed their new details, with no new evaluation. Sources hold details already settled (``LinkDetails/settled(after:)``),
/// so that a change they announce is one a listener should hear.
package protocol LinkDetailsSource: AnyObject, Sendable {
    /// The settled details of `interface`, or `nil` when the source knows nothing of it. Sources match the
    /// interface by name, the one thing ModemManager and NetworkManager say of it.
    func details(of interface: NetworkInterface) -> LinkDetails?
    /// What the source says links are, where it knows better than the platform can tell: a link that carries a
    /// modem's data is cellular, and so, for a moment, may be every link it has not named. The monitor asks whenever
    /// the source says something changed, and gives them to its backend's ``ServiceLinkTypes``.
    func linkTypes() -> ServiceLinkTypes.Said
    /// Sets the one handler the source calls, on any thread, with the names of the interfaces whose details changed;
    /// `nil` names means every interface.
    func onChange(_ handler: @escaping @Sendable (_ interfaces: Set<String>?) -> Void)
}

extension LinkDetailsSource {
    /// No link described: every link is what the platform says.
    package func linkTypes() -> ServiceLinkTypes.Said { ServiceLinkTypes.Said() }

    /// `snapshot` with its path's ``ReachabilityPath/details`` set from this source, and those of the links under
    /// its VPN: the one place a path gets them.
    package func detailed(_ snapshot: ReachabilitySnapshot) -> ReachabilitySnapshot {
        guard let interface = snapshot.path.interface else { return snapshot }
        let details = details(of: interface)
        var underlying = snapshot.path.underlying
        for position in underlying.indices {
            let known = self.details(of: underlying[position].interface)
            underlying[position].details = known?.isEmpty == true ? nil : known
        }
        guard details != snapshot.path.details || underlying != snapshot.path.underlying else { return snapshot }
        var detailed = snapshot
        detailed.path.details = details
        detailed.path.underlying = underlying
        return detailed
    }
}
