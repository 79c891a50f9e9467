import Foundation
import TestSupport

/// The `reach` binary built beside the test bundle, or the one `REACH_BINARY` names (to run these suites against
/// another build, such as the README's deployment one).
enum ReachBinary {
    static let path: String = {
        if let chosen = ProcessInfo.processInfo.environment["REACH_BINARY"], !chosen.isEmpty {
            return URL(fileURLWithPath: chosen).standardizedFileURL.path
        }
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("reach").path
    }()

    /// `reach-queue`, beside `reach`, which `reach queue` runs.
    static var queuePath: String {
        URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("reach-queue").path
    }

    /// Runs `reach ARGS` on the host.
    static func run(_ arguments: [String]) throws -> CommandResult {
        try Command.run([path] + arguments)
    }

    /// Runs `reach status ARGS --json` inside `network` and decodes its one line.
    static func status(in network: TestNetwork, _ arguments: [String]) throws -> (exit: Int32, json: [String: Any]) {
        let result = try network.run([path, "status"] + arguments + ["--json"])
        guard result.lines.count == 1, let data = result.lines[0].data(using: .utf8),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else {
            throw CommandError(command: arguments, result: result)
        }
        return (result.status, object)
    }
}

extension Dictionary where Key == String, Value == Any {
    /// The string at `key`, or `nil` for JSON null or a missing key.
    func string(_ key: String) -> String? { self[key] as? String }
    /// The boolean at `key`.
    func bool(_ key: String) -> Bool? { self[key] as? Bool }
    /// The interface object's field.
    func interface(_ field: String) -> Any? { (self["interface"] as? [String: Any])?[field] }
}
