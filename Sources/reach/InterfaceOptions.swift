import ArgumentParser
import NetworkReachabilityKit

extension NetworkInterface.InterfaceType: ExpressibleByArgument {}

/// `--require TYPE` and `--prohibit TYPE`: NWPathMonitor's required and prohibited interface types, part of
/// ``TargetOptions``.
struct InterfaceOptions: ParsableArguments {
    @Option(
        name: .customLong("require"),
        help: "Reachable only through an interface of this type (wifi, wiredEthernet, cellular, loopback, other).")
    var requiredType: NetworkInterface.InterfaceType?

    @Option(
        name: .customLong("prohibit"),
        help: "Never through an interface of this type; repeat for more (--prohibit cellular: no mobile data).")
    var prohibitedTypes: [NetworkInterface.InterfaceType] = []

    /// `argument` restricted as the options say; as it is without them.
    func restrict(_ argument: TargetArgument) -> TargetArgument {
        let restriction = InterfaceRestriction(requiredType: requiredType, prohibitedTypes: Set(prohibitedTypes))
        return restriction.isEmpty ? argument : argument.restricted(to: restriction)
    }
}
