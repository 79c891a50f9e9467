import NetworkReachabilityPOSIX

/// What a system service says links are, where the platform's own facts cannot tell: Linux calls a PPP link `other`,
/// since the same kind of link carries a DSL line (PPPoE) or a modem's data, but NetworkManager knows its device is a
/// modem. A backend holds one, which reads and the monitor's passes share; the monitor fills it from its
/// ``LinkDetailsSource``.
///
/// Only a link the platform calls ``NetworkInterface/InterfaceType/other`` takes the service's word
/// (``describe(_:by:)``): a type the platform's own facts give is never overruled.
package final class ServiceLinkTypes: Sendable {
    /// What a service says: the type of each link it names, and of every other link the platform cannot tell.
    package struct Said: Sendable, Equatable {
        /// Types by link name.
        package var named: [String: NetworkInterface.InterfaceType] = [:]
        /// The type of a link the platform cannot tell that ``named`` does not name, if the service says one.
        package var unnamed: NetworkInterface.InterfaceType?

        /// Says `named`, and `unnamed` of every other link.
        package init(named: [String: NetworkInterface.InterfaceType] = [:], unnamed: NetworkInterface.InterfaceType? = nil) {
            self.named = named
            self.unnamed = unnamed
        }
    }

    private let types = Locked(Said())

    /// Makes an empty set: every link is what the platform says.
    package init() {}

    /// The types services say now: an evaluator takes them once, for its pass or read.
    package var current: Said { types.withLock { $0 } }

    /// Takes the types a service says now; returns whether they changed, so that the targets they touch are
    /// evaluated again.
    package func update(_ said: Said) -> Bool {
        types.withLock { types in
            guard types != said else { return false }
            types = said
            return true
        }
    }

    /// `interface` as the rule has it: its platform's type, unless that is `other` and `said` names the link, or says
    /// what every link it does not name is.
    package static func describe(_ interface: NetworkInterface, by said: Said) -> NetworkInterface {
        guard interface.type == .other, let type = said.named[interface.name] ?? said.unnamed else { return interface }
        var described = interface
        described.type = type
        return described
    }
}
