import Foundation
import Testing
import TestSupport

/// The man page and shell completions in `Documentation/` are generated once and committed, so that nobody needs
/// the plugin's release build: they must say what the command takes today (`scripts/generate-docs` makes them again).
struct ManualAndCompletionsTests {
    private static let documentation = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Documentation")

    @Test(arguments: ["bash", "zsh", "fish"])
    func theCommittedCompletionsAreTheCommandsOwn(shell: String) throws {
        let generated = try ReachBinary.run(["--generate-completion-script", shell])
        #expect(generated.status == 0)
        let committed = try String(
            contentsOf: Self.documentation.appending(path: "completions/reach.\(shell)"), encoding: .utf8)
        #expect(
            generated.standardOutput == committed, "Documentation/completions/reach.\(shell) is stale: run scripts/generate-docs")
    }

    @Test func theCommittedManualNamesEverySubcommandAndOption() throws {
        let dump = try ReachBinary.run(["--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
        let manual = try String(contentsOf: Self.documentation.appending(path: "reach.1"), encoding: .utf8)
        var missing: [String] = []
        var checked = 0
        func visit(_ command: [String: Any], path: [String]) {
            let name = command["commandName"] as? String ?? ""
            let here = path + [name]
            if here.count > 1 && !manual.contains(here.joined(separator: " ")) && !manual.contains(name) {
                missing.append(here.joined(separator: " "))
            }
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                guard let names = argument["names"] as? [[String: Any]],
                    let long = names.first(where: { $0["kind"] as? String == "long" })?["name"] as? String,
                    argument["shouldDisplay"] as? Bool != false
                else { continue }
                checked += 1
                if !manual.contains("Fl -\(long)") { missing.append("\(here.joined(separator: " ")) --\(long)") }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { visit(sub, path: here) }
        }
        visit(try #require(root["command"] as? [String: Any]), path: [])
        #expect(checked > 40)
        #expect(missing.isEmpty, "Documentation/reach.1 lacks \(missing): run scripts/generate-docs")
    }
}
