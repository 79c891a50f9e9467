import Foundation
import Testing

@testable import NetworkReachabilityCore
@testable import NetworkReachabilityPOSIX

/// A directory's change handler is called as it was given, however often: a handler kept as a lock's value was
/// wrapped in two more thunks by each read, so every call ran deeper on the stack and the chain grew without bound.
struct ChangeHandlerTests {
    /// How many frames the calling thread's stack holds, by unwinding it (a local's address would not do: under
    /// AddressSanitizer, frames live on a fake stack of their own).
    @inline(never)
    private static func stackDepth() -> Int {
        Thread.callStackReturnAddresses.count
    }

    private static let calls = 1_000

    @Test func dns64AnswersCallTheHandlerAtTheSameDepthEveryTime() {
        let directory = ProvisioningDirectory { _, completion in completion([]) }
        let depths = Locked<[Int]>([])
        directory.onChange { depths.withLock { $0.append(Self.stackDepth()) } }
        let network = ProvisioningDirectory.Network(interfaceIndex: 2, gateway: try? IPAddress("fe80::1"))
        _ = directory.provisions(onInterface: 2, ipv6OnlyNetwork: network)
        for _ in 1..<Self.calls { directory.rediscover() }
        // The first answer comes through the read that started the discovery, the others through `rediscover`
        let seen = depths.withLock { $0 }.dropFirst()
        #expect(seen.count == Self.calls - 1)
        #expect(Set(seen).count == 1, "from \(seen.first ?? 0) frames to \(seen.last ?? 0)")
    }

    @Test func hostResolutionsCallTheHandlerAtTheSameDepthEveryTime() throws {
        let report = Locked<HostResolver.Report?>(nil)
        let directory = HostDirectory { given in
            report.withLock { $0 = given }
            return Unanswered()
        }
        let depths = Locked<[Int]>([])
        directory.onChange { _ in depths.withLock { $0.append(Self.stackDepth()) } }
        let name = try HostName("example.test")
        directory.watch(name, timeout: .seconds(1))
        let deliver = try #require(report.withLock { $0 })
        let addresses = [try IPAddress("192.0.2.1"), try IPAddress("192.0.2.2")]
        for call in 0..<Self.calls { deliver(name, .resolved([addresses[call % 2]])) }
        let seen = depths.withLock { $0 }
        #expect(seen.count == Self.calls)
        #expect(Set(seen).count == 1, "from \(seen.first ?? 0) frames to \(seen.last ?? 0)")
    }

    /// A resolver the test answers for.
    private struct Unanswered: NameResolving {
        func resolve(_ name: HostName, timeout: Duration) {}
    }
}
