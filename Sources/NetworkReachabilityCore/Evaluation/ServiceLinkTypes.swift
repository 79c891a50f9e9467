import NetworkReachabilityPOSIX

/// What a system service says links are, where the platform's own facts cannot tell: Linux calls a PPP link `other`,
/// since the same kind of link carries a DSL line (PPPoE) or a modem's data, but NetworkManager knows its device is a
/// modem. A backend holds one, which reads and the monitor's passes share; the monitor fills it from its
/// ``LinkDetailsSource``.
///
/// Only a link the platform calls ``NetworkInterface/InterfaceType/other`` takes the service's word
/// (``describe(_:by:)``): a type the platform's own facts give is never overruled.
package final class ServiceLinkTypes: Sendable {
    private let types = Locked([String: NetworkInterface.InterfaceType]())

    /// Makes an empty set: every link is what the platform says.
    package init() {}

    /// The types services say now, by link name: an evaluator takes them once, for its pass or read.
    package var current: [String: NetworkInterface.InterfaceType] { types.withLock { $0 } }

    /// Takes the types a service says now; returns whether they changed, so that the targets they touch are
    /// evaluated again.
    package func update(_ said: [String: NetworkInterface.InterfaceType]) -> Bool {
        types.withLock { types in
            guard types != said else { return false }
            types = said
            return true
        }
    }

    /// `interface` as the rule has it: its platform's type, unless that is `other` and `said` names the link.
    package static func describe(
        _ interface: NetworkInterface, by said: [String: NetworkInterface.InterfaceType]
    ) -> NetworkInterface {
        guard interface.type == .other, !said.isEmpty, let type = said[interface.name] else { return interface }
        var described = interface
        described.type = type
        return described
    }
}
