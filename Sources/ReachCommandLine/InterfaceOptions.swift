public import ArgumentParser
public import NetworkReachabilityKit

extension NetworkInterface.InterfaceType: ExpressibleByArgument {}

/// `--require TYPE` and `--prohibit TYPE`: NWPathMonitor's required and prohibited interface types, part of
/// ``TargetOptions``.
package struct InterfaceOptions: ParsableArguments {
    @Option(
        name: .customLong("require"),
        help: "Reachable only through an interface of this type (wifi, wiredEthernet, cellular, loopback, other).")
    package var requiredType: NetworkInterface.InterfaceType?

    @Option(
        name: .customLong("prohibit"),
        help: "Never through an interface of this type; repeat for more (--prohibit cellular: no mobile data).")
    package var prohibitedTypes: [NetworkInterface.InterfaceType] = []

    package init() {}

    /// A type both required and prohibited leaves no interface: a mistake in the arguments, not a network that is
    /// never reachable.
    package func validate() throws {
        if let requiredType, prohibitedTypes.contains(requiredType) {
            throw ValidationError("--require \(requiredType) and --prohibit \(requiredType) leave no interface: give one or the other")
        }
    }
}
