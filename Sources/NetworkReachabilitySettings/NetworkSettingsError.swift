/// Why a settings file was not taken, or a network's settings could not be recorded: each one line, naming the file
/// and, for a malformed one, the line.
public enum NetworkSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file is not the settings YAML: `path:line: reason`.
    case malformed(path: String, line: Int, reason: String)
    /// The file could be written by another user, or is no regular file, or cannot be read: it was not believed.
    case refused(path: String, reason: String)
    /// A label, URL or id given to record is not valid.
    case invalidValue(reason: String)
    /// The file could not be written.
    case unwritable(path: String, reason: String)

    /// The one line: `/etc/reach/networks:3: metered is not yes or no`.
    public var description: String {
        switch self {
        case .malformed(let path, let line, let reason): "\(path):\(line): \(reason)"
        case .refused(let path, let reason): "\(path) is not used: \(reason)"
        case .invalidValue(let reason): reason
        case .unwritable(let path, let reason): "\(path) cannot be written: \(reason)"
        }
    }
}
