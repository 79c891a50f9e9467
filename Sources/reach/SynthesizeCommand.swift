import ArgumentParser
import NetworkReachabilityKit
import ReachCommandLine

/// `reach synthesize`: the IPv6 address that reaches an IPv4 address through NAT64 (RFC 6052).
struct SynthesizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synthesize",
        abstract: "Print the IPv4-embedded IPv6 address for an IPv4 address (RFC 6052), with a given or discovered prefix."
    )

    @Argument(help: "The IPv4 address.")
    var address: String

    @Option(help: "The NAT64 prefix, e.g. 64:ff9b::/96; discovered through DNS64 (RFC 7050) when not given.")
    var prefix: String?

    func run() async throws {
        let ipv4 = try IPAddress(address)
        guard ipv4.family == .ipv4 else { throw ReachabilityError.invalidAddress(address, reason: "not an IPv4 address") }
        let nat64: NAT64Prefix
        if let prefix {
            nat64 = try NAT64Prefix(prefix)
        } else if let discovered = await NAT64Discovery.discoverPrefixes(timeout: NAT64Command.defaultWait.duration).first {
            nat64 = discovered
        } else {
            Output.say("no NAT64 prefix found (no DNS64 answer for ipv4only.arpa); pass --prefix")
            throw ExitCode(1)
        }
        Output.line(try nat64.synthesize(ipv4).description)
    }
}
