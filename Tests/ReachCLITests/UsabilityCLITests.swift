import Foundation
import NetworkReachabilityKit
import Testing
import TestSupport

/// What a person at a terminal or a script meets first: the version, a URL as a target, a mistyped command, a
/// closed pipe. Targets are the host's own loopback addresses, so these run anywhere without a namespace.
@Suite(.ownThread)
struct UsabilityCLITests {
    @Test func versionPrintsTheLibrarysVersion() throws {
        let result = try ReachBinary.run(["--version"])
        #expect(result.status == 0)
        #expect(result.lines == [NetworkReachability.version])
    }

    /// The version lives in `NetworkReachability.version` alone: CHANGELOG's newest entry and README's dependency line
    /// say the same.
    @Test func changelogAndReadmeNameTheLibrarysVersion() throws {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let changelog = try TestFile.text(root.appending(path: "CHANGELOG.md").path)
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
        #expect(newest?.hasPrefix("## [\(NetworkReachability.version)]") == true, "\(newest ?? "none")")
        let readme = try TestFile.text(root.appending(path: "README.md").path)
        #expect(readme.contains(#"from: "\#(NetworkReachability.version)""#))
    }

    @Test func aURLIsTakenAsItsHostAndSaysSo() throws {
        let result = try ReachBinary.run(["status", "http://user@127.0.0.1:8080/v1?q=1", "--json"])
        #expect(result.status == 0)
        let object = try #require(
            result.lines.first.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(object.string("target") == "127.0.0.1")
        #expect(object.string("status") == "reachable")
        #expect(result.standardError == "reach: http://user@127.0.0.1:8080/v1?q=1 is a URL; its host 127.0.0.1 is the target\n")
    }

    @Test(arguments: [("wach", "watch"), ("stauts", "status"), ("statu", "status"), ("synthesise", "synthesize")])
    func aWordOneEditFromACommandIsBadUsageWithASuggestion(typed: String, meant: String) throws {
        let result = try ReachBinary.run([typed])
        #expect(result.status == 64)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError == "reach: unknown command '\(typed)'; did you mean '\(meant)'?\n")
    }

    @Test func aWordFartherFromEveryCommandIsStillATarget() throws {
        let result = try ReachBinary.run(["localhost"])
        #expect(result.status == 0)
        #expect(result.lines.first?.hasPrefix("localhost: reachable") == true)
    }

    /// `reach watch | head -1`: the reader goes after one line, and watch ends at once with exit 0 and nothing on
    /// stderr, though the network stays quiet (no later line would fail to be written).
    @Test func aClosedStdoutEndsWatchQuietlyWithExitZero() throws {
        let script = "set -o pipefail; \"$0\" watch 127.0.0.1 | head -1"
        let result = try Command.run(["bash", "-c", script, ReachBinary.path], timeout: 30)
        #expect(result.status == 0)
        #expect(result.lines.count == 1)
        #expect(result.standardError.isEmpty)
    }

    /// The completion scripts argument-parser writes know every subcommand, and bash accepts its script.
    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsNameEverySubcommand(shell: String) throws {
        let result = try ReachBinary.run(["--generate-completion-script", shell])
        #expect(result.status == 0)
        for command in ["status", "watch", "wait", "interfaces", "nat64", "synthesize", "--prohibit"] {
            #expect(result.standardOutput.contains(command), "\(shell): \(command)")
        }
        if shell == "bash" {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("reach-completion-\(getpid()).bash")
            try result.standardOutput.write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(try Command.run(["bash", "-n", file.path]).status == 0)
        }
    }
}
