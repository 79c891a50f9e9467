import FoundationEssentials
import NetworkReachabilityCore
import NetworkReachabilityValidationCore

/// The JSON object of one target's state: `reach status --json`'s line, each element of `/status` and each `/events`
/// event. The library's encoding of the snapshot, with the target as given, the time, and the probe's answer.
package enum StatusRecord {
    /// One JSON object with the keys the contract names, sorted so lines are stable.
    package static func line(
        _ snapshot: ReachabilitySnapshot, target: String, validation: ValidationOutcome? = nil
    ) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let record = Record(snapshot: snapshot, target: target, validation: validation)
        return (try? encoder.encode(record)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The library's encoding of the snapshot, plus what only the command knows: when it printed the line, and
    /// the probe's answer with `--validate`.
    private struct Record: Encodable {
        enum CodingKeys: String, CodingKey { case time, validation, loginURL, validationFailure }

        let snapshot: ReachabilitySnapshot
        let target: String
        let validation: ValidationOutcome?

        func encode(to encoder: any Encoder) throws {
            try snapshot.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(Date.now.formatted(Self.timeFormat), forKey: .time)
            if let validation {  // only with --validate
                try container.encode(validation.name, forKey: .validation)
                if case .captivePortal(let loginURL) = validation {
                    try container.encode(loginURL, forKey: .loginURL)
                } else {
                    try container.encodeNil(forKey: .loginURL)
                }
                if case .limited(let reason) = validation {
                    try container.encode(reason, forKey: .validationFailure)
                } else {
                    try container.encodeNil(forKey: .validationFailure)
                }
            }
            // The target as the user typed it ("the address as given"), over the library's canonical text.
            var target = encoder.container(keyedBy: TargetKey.self)
            try target.encode(self.target, forKey: .target)
        }

        private enum TargetKey: String, CodingKey { case target }

        /// ISO 8601 in UTC with milliseconds: `2026-11-22T12:00:00.000Z`.
        private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
    }
}
