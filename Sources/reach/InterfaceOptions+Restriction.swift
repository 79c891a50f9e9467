import NetworkReachabilityKit
import ReachCommandLine

extension InterfaceOptions {
    /// `argument` restricted as the options say; as it is without them.
    func restrict(_ argument: TargetArgument) -> TargetArgument {
        let restriction = InterfaceRestriction(requiredType: requiredType, prohibitedTypes: Set(prohibitedTypes))
        return restriction.isEmpty ? argument : argument.restricted(to: restriction)
    }
}
