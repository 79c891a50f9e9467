import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// A URL given as a target stands for its host: the most common mistake in reachability trackers is passing one.
struct URLTargetTests {
    @Test(arguments: [
        ("https://api.example.com/v1", ReachabilityTarget.host(try! HostName("api.example.com"))),
        ("https://user:secret@api.example.com:8443/v1?q=a/b#top", .host(try! HostName("api.example.com"))),
        ("http://192.0.2.7:8080", .address(try! IPAddress("192.0.2.7"))),
        ("http://[2001:db8::1]:80/index.html", .address(try! IPAddress("2001:db8::1"))),
        ("wss://example.com?x", .host(try! HostName("example.com"))),
    ])
    func aURLIsItsHost(text: String, expected: ReachabilityTarget) throws {
        #expect(try ReachabilityTarget(url: text) == expected)
        #expect(try ReachabilityTarget(parsing: text) == expected)
        #expect(try NetworkReachability(url: text).target == expected)
    }

    @Test(arguments: ["https://", "https:///v1", "://example.com", "example.com/v1", "http://[2001:db8::1/", "ht tp://x"])
    func aURLWithoutSchemeOrHostIsAnInvalidURL(text: String) {
        #expect {
            _ = try ReachabilityTarget(url: text)
        } throws: { error in
            guard case .invalidURL(let quoted, _)? = error as? ReachabilityError else { return false }
            return quoted == text
        }
    }

    @Test func aURLsHostIsCheckedAsAHostIs() {
        #expect(throws: ReachabilityError.self) { try ReachabilityTarget(url: "http://300.1.2.3/") }
        #expect(throws: ReachabilityError.self) { try ReachabilityTarget(url: "http://exa_mple!.com/") }
    }
}
