import ArgumentParser
import ReachCommandLine
import NetworkReachabilityQueue

/// A word of `reach queue add --when`: a condition beyond the default, which is that the target is reachable.
enum QueueCondition: String, CaseIterable, Sendable {
    case reachable
    case validated
    case unmetered
    case notRoaming = "not-roaming"

    /// `--when`'s transform: a comma-separated list of conditions.
    static func list(_ text: String) throws -> [QueueCondition] {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { word in
            guard let condition = QueueCondition(rawValue: String(word)) else {
                throw ValidationError(
                    "'\(word)' is no condition; use \(allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return condition
        }
    }

    /// The words of `conditions`, as `--when` takes them and `list` prints them (`reachable` first when it is set).
    static func words(of conditions: JobConditions) -> [String] {
        var words: [QueueCondition] = []
        if conditions.reachable { words.append(.reachable) }
        if conditions.validated { words.append(.validated) }
        if conditions.unmetered { words.append(.unmetered) }
        if conditions.notRoaming { words.append(.notRoaming) }
        return words.map(\.rawValue)
    }
}
