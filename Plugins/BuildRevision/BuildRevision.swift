import Foundation
import PackagePlugin

/// Gives the exporter the commit it is built from, for `reach_build_info{revision}` (as Prometheus' exporters are
/// given theirs at build time): `git rev-parse HEAD` in the package's folder, written as `BuildInfo.revision`
/// (`unknown` outside a Git checkout). It runs again when a commit or a checkout changes `.git/HEAD` or the branch
/// it names, so an unchanged build compiles nothing again.
@main
struct BuildRevision: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let package = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildRevision.swift")
        let script = """
            revision=$(git -C "$1" rev-parse --verify --quiet HEAD 2>/dev/null) || revision=unknown
            printf 'extension BuildInfo { static let revision = "%s" }\\n' "$revision" > "$2"
            """
        return [
            .buildCommand(
                displayName: "Reading the commit reach is built from",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", package.path, output.path],
                inputFiles: Self.references(in: package.appending(path: ".git")),
                outputFiles: [output])
        ]
    }

    /// The files a commit or a checkout changes: `HEAD`, the branch it names, and the packed references.
    private static func references(in git: URL) -> [URL] {
        let head = git.appending(path: "HEAD")
        guard let text = try? String(contentsOf: head, encoding: .utf8) else { return [] }
        var files = [head, git.appending(path: "packed-refs")]
        if text.hasPrefix("ref: ") {
            files.append(git.appending(path: text.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        return files.filter { FileManager.default.fileExists(atPath: $0.path) }
    }
}
