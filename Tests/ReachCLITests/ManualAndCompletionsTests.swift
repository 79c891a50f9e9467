import Foundation
import Testing
import TestSupport

/// The man page and shell completions in `Documentation/` are generated once and committed, so that nobody needs
/// the plugin's release build: they must say what the command takes today (`scripts/generate-docs` makes them again).
@Suite(.ownThread)
struct ManualAndCompletionsTests {
    private static let documentation = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Documentation")

    /// Each program, by name, with its path.
    private static let programs = [("reach", ReachBinary.path), ("reach-queue", ReachBinary.queuePath)]

    @Test(arguments: ["bash", "zsh", "fish"])
    func theCommittedCompletionsAreTheCommandsOwn(shell: String) throws {
        for (name, path) in Self.programs {
            let generated = try Command.run([path, "--generate-completion-script", shell])
            #expect(generated.status == 0)
            let committed = try TestFile.text(Self.documentation.appending(path: "completions/\(name).\(shell)").path)
            #expect(
                generated.standardOutput == committed,
                "Documentation/completions/\(name).\(shell) is stale: run scripts/generate-docs")
        }
    }

    @Test(arguments: [("reach", 40), ("reach-queue", 12)])
    func theCommittedManualNamesEverySubcommandAndOption(program: String, leastOptions: Int) throws {
        let path = program == "reach" ? ReachBinary.path : ReachBinary.queuePath
        let dump = try Command.run([path, "--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
        let manual = try TestFile.text(Self.documentation.appending(path: "\(program).1").path)
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
        #expect(checked > leastOptions)
        #expect(missing.isEmpty, "Documentation/\(program).1 lacks \(missing): run scripts/generate-docs")
    }
}
