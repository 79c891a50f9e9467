import ArgumentParser
import ReachCommandLine
import NetworkReachabilityQueue
import NetworkReachabilitySettings

/// A word of `reach queue add --when`: a condition beyond the default, which is that the target is reachable.
enum QueueCondition: Hashable, Sendable {
    case reachable
    case validated
    case unmetered
    case notRoaming
    /// `quality=3g`: the link measured at least this good.
    case quality(EffectiveConnectionType)
    /// `network=home`: on the network of this label (the settings file's) or id.
    case network(String)

    /// The words `--when` takes, for its help and its errors.
    static let words = ["reachable", "validated", "unmetered", "not-roaming", "quality=4g|3g|2g|slow-2g", "network=LABEL|ID"]

    init?(word: Substring) {
        switch word {
        case "reachable": self = .reachable
        case "validated": self = .validated
        case "unmetered": self = .unmetered
        case "not-roaming": self = .notRoaming
        case _ where word.hasPrefix("network="):
            let name = String(word.dropFirst("network=".count))
            guard NetworkSettingsFile.networkID(name) != nil || NetworkSettingsFile.labelProblem(name) == nil else {
                return nil
            }
            self = .network(NetworkSettingsFile.networkID(name) ?? name)
        default:
            guard word.hasPrefix("quality="),
                let type = EffectiveConnectionType(rawValue: String(word.dropFirst("quality=".count))), type != .unknown
            else { return nil }
            self = .quality(type)
        }
    }

    /// The class of a `quality=` condition; `nil` for the others.
    var quality: EffectiveConnectionType? {
        if case .quality(let type) = self { type } else { nil }
    }

    /// The name of a `network=` condition; `nil` for the others.
    var network: String? {
        if case .network(let name) = self { name } else { nil }
    }

    /// The word `--when` takes for this condition.
    var word: String {
        switch self {
        case .reachable: "reachable"
        case .validated: "validated"
        case .unmetered: "unmetered"
        case .notRoaming: "not-roaming"
        case .quality(let type): "quality=\(type)"
        case .network(let name): "network=\(name)"
        }
    }

    /// `--when`'s transform: a comma-separated list of conditions.
    static func list(_ text: String) throws -> [QueueCondition] {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { word in
            guard let condition = QueueCondition(word: word) else {
                throw ValidationError("'\(word)' is no condition; use \(words.joined(separator: ", "))")
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
        if let minimum = conditions.minimumQuality { words.append(.quality(minimum)) }
        if let network = conditions.network { words.append(.network(network)) }
        return words.map(\.word)
    }
}
