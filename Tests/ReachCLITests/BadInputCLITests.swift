import Foundation
import Testing
import TestSupport

/// Every `reach` subcommand fed hostile arguments: exit 64, one line on stderr, nothing on stdout, never a trap.
@Suite(.ownThread)
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
        ["serve", "--listen", "prometheus.example:9464"], ["serve", "--listen", "::1:9464"], ["serve", "bad..name"],
        ["serve", "--max-connections", "0"], ["serve", "--request-timeout", "0"],
        ["serve", "127.0.0.1", "--validate", "http://192.0.2.1/generate_204"],
        ["serve", "--max-connections", "9223372036854775807"], ["serve", "--max-connections", "65537"],
        ["serve", "--max-streams", "1025"], ["serve", "--max-streams", "20", "--max-connections", "10"], ["serve", "--max-streams", "4", "--max-connections", "4"],
        ["serve", "--request-timeout", "1e-9"], ["serve", "--request-timeout", "0.01"], ["serve", "--request-timeout", "+5"],
        ["serve", "--listen", "127.0.0.1:+80"], ["serve", "--listen", "127.0.0.1:080000"], ["serve", "--listen", huge],
        ["serve", "--validate", "http://x:99999/"], ["serve", "--validate", huge], ["serve", "--web-config", "/nonexistent"],
        ["serve", "--request-timeout", huge], ["wait", "--timeout", "-5"], ["wait", "--timeout", "86401"],
        ["status", "--validation-timeout", "0"], ["status", "--require", "bogus"], ["watch", "--prohibit", ""],
        // Every target and option is checked before a word is said: no "is a URL" line ahead of the error.
        ["watch", "http://192.0.2.1/", "bad..name"], ["wait", "http://192.0.2.1/", "--validate", "http://x:99999/"],
        // A type both required and prohibited; an unknown zone to listen on
        ["status", "--require", "wifi", "--prohibit", "wifi"], ["serve", "--listen", "[fe80::1%nope]:9464"],
        ["serve", "--listen", "[fe80::1%4000000]:9464"],
        // The queue's options, checked before its file is made: negative numbers name their range, a day that does
        // not exist, an empty path, key or id 0
        ["queue", "add", "/nonexistent/q.db", "--require", "cellular", "--prohibit", "cellular", "--", "true"],
        ["queue", "add", "/nonexistent/q.db", "--attempts", "-1", "--", "true"],
        ["queue", "add", "/nonexistent/q.db", "--timeout", "-5", "--", "true"],
        ["queue", "add", "/nonexistent/q.db", "--after", "-1", "--", "true"],
        ["queue", "add", "/nonexistent/q.db", "--not-before", "2026-02-30T00:00:00Z", "--", "true"],
        ["queue", "add", "/nonexistent/q.db", "--key", "", "--", "true"], ["queue", "add", "", "--", "true"],
        ["queue", "list", ""], ["queue", "log", "/nonexistent/q.db", "0"], ["queue", "run", "/nonexistent/q.db", "--concurrency", "-1"],
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

    /// `status` reads one target and its help says so; the commands that read several say so too.
    @Test func eachCommandsHelpNamesAsManyTargetsAsItReads() throws {
        let status = try ReachBinary.run(["status", "--help"]).standardOutput
        #expect(status.contains("reach status [<target>]") && !status.contains("<targets>"), "\(status)")
        for command in ["watch", "wait", "serve"] {
            let help = try ReachBinary.run([command, "--help"]).standardOutput
            #expect(help.contains("[<targets> ...]") && help.contains("Targets: internet (default)"), "\(command): \(help)")
        }
    }

    @Test func aLongBadValueIsQuotedAtMost80CharactersAMistypedCommandIsNamedAndANegativeNumberIsARange() throws {
        for option in ["--request-timeout", "--max-connections", "--listen", "--validate"] {
            let line = try ReachBinary.run(["serve", option, Self.huge]).standardError
            #expect(!line.contains(String(repeating: "x", count: 81)), "\(option)")
            #expect(line.count < 300, "\(option)")
        }
        let negative = try ReachBinary.run(["wait", "--timeout", "-5"]).standardError
        #expect(
            negative
                == "reach: The value '-5' is invalid for '--timeout <timeout>': must be a number of seconds from 0 to 86400\n")
        for (mistyped, meant) in [(["wach"], "watch"), (["queue", "ad", "q.db"], "add"), (["queue", "lsit", "q.db"], "list")] {
            let line = try ReachBinary.run(mistyped).standardError
            #expect(line == "reach: unknown command '\(mistyped.last == "q.db" ? mistyped[1] : mistyped[0])'; did you mean '\(meant)'?\n", "\(line)")
        }
        let attempts = try ReachBinary.run(["queue", "add", "/nonexistent/q.db", "--attempts", "-1", "--", "true"]).standardError
        #expect(attempts.contains("'-1' is invalid for '--attempts <attempts>'") && attempts.contains("from 1 to 1000"), "\(attempts)")
    }

    @Test func argumentsThatAreNotUTF8AreBadInputToo() throws {
        // The shell hands reach raw bytes 0xFF 0xFE, which no UTF-8 decoder accepts
        let result = try Command.run(["/bin/sh", "-c", "exec \"$0\" status \"$(printf '\\377\\376')\"", ReachBinary.path])
        #expect(result.status == 64)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.split(separator: "\n").count == 1)
    }
}
