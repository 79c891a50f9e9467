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
}
