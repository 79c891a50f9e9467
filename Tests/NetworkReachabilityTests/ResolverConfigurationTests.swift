import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// `/etc/resolv.conf` read as a resolver does, and systemd-resolved's files as it writes them (Debian 12's 252).
struct ResolverConfigurationTests {
    static let stub = """
        # This is /run/systemd/resolve/stub-resolv.conf managed by man:systemd-resolved(8).
        # Do not edit.
        #
        # See man:systemd-resolved.service(8) for details about the supported modes of
        # operation for /etc/resolv.conf.

        nameserver 127.0.0.53
        options edns0 trust-ad
        search .
        """
    static let noUpstream = """
        # This is /run/systemd/resolve/resolv.conf managed by man:systemd-resolved(8).
        # Do not edit.

        # No DNS servers known.
        search .
        """
    static let upstream = """
        # This is /run/systemd/resolve/resolv.conf managed by man:systemd-resolved(8).
        # Do not edit.

        nameserver 192.0.2.1
        nameserver 2001:db8::53
        search .
        """

    @Test func aPlainFileNamesItsServers() throws {
        let configuration = ResolverConfiguration(parsing: "# comment\nnameserver 192.0.2.1\noptions rotate\nnameserver bad\n")
        #expect(configuration.nameServers == [try IPAddress("192.0.2.1")] && !configuration.isSystemdResolvedStub)
    }

    @Test func theStubStandsForSystemdResolvedsUpstreamServers() throws {
        let upstream = ResolverConfiguration(parsing: Self.stub, systemdResolvedUpstream: Self.upstream)
        #expect(upstream.isSystemdResolvedStub)
        #expect(upstream.nameServers == [try IPAddress("192.0.2.1"), try IPAddress("2001:db8::53")])
        // none known, or systemd-resolved not running: no server, so no DNS
        #expect(ResolverConfiguration(parsing: Self.stub, systemdResolvedUpstream: Self.noUpstream).nameServers.isEmpty)
        #expect(ResolverConfiguration(parsing: Self.stub, systemdResolvedUpstream: nil).nameServers.isEmpty)
        // the proxy-only stub too, and only when it is the only server named
        #expect(ResolverConfiguration(parsing: "nameserver 127.0.0.54\n").isSystemdResolvedStub)
        let mixed = ResolverConfiguration(parsing: "nameserver 127.0.0.53\nnameserver 192.0.2.9\n", systemdResolvedUpstream: "")
        #expect(!mixed.isSystemdResolvedStub && mixed.nameServers.count == 2)
    }

    @Test func anIPv6OnlyUpstreamMakesTheResolverIPv6Only() {
        let v6 = ResolverConfiguration(parsing: Self.stub, systemdResolvedUpstream: "nameserver 2001:db8::53\n")
        #expect(v6.isIPv6Only)
        #expect(!ResolverConfiguration(parsing: Self.stub, systemdResolvedUpstream: nil).isIPv6Only)
    }
}
