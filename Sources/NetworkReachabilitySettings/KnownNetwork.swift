public import NetworkReachabilityCore

/// A network the settings files name: its id, what they say of it, and the file that says it.
public struct KnownNetwork: Sendable, Hashable, Codable {
    /// The network's id (`NetworkIdentity.id`).
    public var id: String
    /// What the files say of it: a user's file over the host's, field by field.
    public var settings: NetworkSettings
    /// The file that says it (the user's, where both do).
    public var file: String

    /// Makes one.
    public init(id: String, settings: NetworkSettings, file: String) {
        self.id = id
        self.settings = settings
        self.file = file
    }

    private enum CodingKeys: String, CodingKey { case id, label, metered, validate, file }

    /// Decodes what ``encode(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            settings: NetworkSettings(
                label: try container.decodeIfPresent(String.self, forKey: .label),
                isMetered: try container.decodeIfPresent(Bool.self, forKey: .metered),
                validationURL: try container.decodeIfPresent(String.self, forKey: .validate)),
            file: try container.decode(String.self, forKey: .file))
    }

    /// Encodes `id`, `label`, `metered`, `validate` (each null where the files say nothing) and `file`: `reach
    /// networks --json`'s `known` entries.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(settings.label, forKey: .label)
        try container.encode(settings.isMetered, forKey: .metered)
        try container.encode(settings.validationURL, forKey: .validate)
        try container.encode(file, forKey: .file)
    }
}
