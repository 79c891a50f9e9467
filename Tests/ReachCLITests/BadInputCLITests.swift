import Foundation
import Testing
import TestSupport

/// Every `reach` subcommand fed hostile arguments: exit 64, one line on stderr, nothing on stdout, never a trap.
struct BadInputCLITests {
    private static let huge = String(repeating: "x", count: 100_000)

    @Test(arguments: [
        ["status", ""], ["status", "256.1.1.1"], ["status", "fe80::1%nope"], ["status", huge], ["status", "a\nb"],
        ["status", "192.0.2.1", "--from", "::1"], ["status", "192.0.2.1", "--from", "203.0.113.77"],
        ["status", "internet", "--from", "127.0.0.1"], ["status", "--resolution-timeout", "0"],
        ["status", "--resolution-timeout", "nan"], ["status", "--resolution-timeout", "-1"],
        ["status", "--resolution-timeout", "1e308"], ["status", "--no-such-flag"], ["status", "one", "two"],
        ["watch", ""], ["watch", "internet", "bad..name"], ["watch", "--resolution-timeout", "inf"],
        ["nat64", "--wait", "-5"], ["nat64", "--wait", "inf"], ["nat64", "--wait", ""], ["nat64", "extra"],
        ["synthesize"], ["synthesize", "2001:db8::1"], ["synthesize", huge],
        ["synthesize", "192.0.2.33", "--prefix", "64:ff9b::/129"],
        ["synthesize", "192.0.2.33", "--prefix", ""], ["synthesize", "192.0.2.33", "--prefix", "64:ff9b::1/96"],
        ["serve", "--listen", "nonsense"], ["serve", "--listen", "127.0.0.1:99999"], ["serve", "--listen", "[::1]9464"],
        ["serve", "--listen", "localhost:9464"], ["serve", "--listen", "::1:9464"], ["serve", "bad..name"],
        ["serve", "--max-connections", "0"], ["serve", "--request-timeout", "0"],
        ["serve", "127.0.0.1", "--validate", "http://192.0.2.1/generate_204"],
    ])
    func badArgumentsExit64WithOneLineOnStderr(arguments: [String]) throws {
        let result = try ReachBinary.run(arguments)
        #expect(result.status == 64)
        #expect(result.standardOutput.isEmpty)
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("reach: ") == true)
        #expect((lines.first?.count ?? 0) < 400)
    }

    @Test func argumentsThatAreNotUTF8AreBadInputToo() throws {
        // The shell hands reach raw bytes 0xFF 0xFE, which no UTF-8 decoder accepts
        let result = try Command.run(["/bin/sh", "-c", "exec \"$0\" status \"$(printf '\\377\\376')\"", ReachBinary.path])
        #expect(result.status == 64)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.split(separator: "\n").count == 1)
    }
}
