import Foundation
import NetworkReachabilityCore
import Yams

/// The settings file's format: YAML, one mapping from network ids to their settings.
///
/// ```yaml
/// # /etc/reach/networks
/// a3f9c0d1e2b3a4f5:
///   label: home
///   metered: no
/// 7c21d0e9f8a7b6c5:
///   label: phone
///   metered: yes
///   validate: http://probe.example.net/generate_204
/// ```
///
/// Every key and value is checked: an id that is not 16 hexadecimal digits, a setting that is not `label`, `metered`
/// or `validate`, a value of the wrong kind, or a network named twice makes the whole file malformed, with the line
/// named, rather than half taken.
package enum NetworkSettingsFile {
    /// The longest file read: some thousand networks.
    package static let sizeLimit = 256 * 1024
    /// The settings a file can give.
    static let keys = ["label", "metered", "validate"]

    /// The networks a file of `bytes` names, in the file's order: UTF-8 text, as ``parse(_:path:)-(String,_)``.
    ///
    /// - Throws: ``NetworkSettingsError/malformed(path:line:reason:)`` naming the first line that is wrong.
    package static func parse(_ bytes: [UInt8], path: String) throws(NetworkSettingsError) -> [(id: String, settings: NetworkSettings)] {
        for (number, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated()
        where String(validating: line, as: UTF8.self) == nil {
            throw .malformed(path: path, line: number + 1, reason: "not UTF-8 text")
        }
        return try parse(String(decoding: bytes, as: UTF8.self), path: path)
    }

    /// The networks `text` names, in the file's order.
    ///
    /// Anchors and aliases (`&a`, `*a`) are refused before the YAML is composed, and so is flow nesting deeper than
    /// ``flowDepthLimit``: a few hundred bytes of aliases used as a key would otherwise cost the composer minutes, and
    /// deep nesting its stack. The format has no use for either.
    ///
    /// - Throws: ``NetworkSettingsError/malformed(path:line:reason:)`` naming the first line that is wrong.
    package static func parse(_ text: String, path: String) throws(NetworkSettingsError) -> [(id: String, settings: NetworkSettings)] {
        if let (line, reason) = unsupportedConstruct(in: text) { throw .malformed(path: path, line: line, reason: reason) }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw malformed(error, path: path)
        } catch {
            throw .malformed(path: path, line: 1, reason: "\(error)")
        }
        guard let root else { return [] }  // empty, or comments only
        guard let networks = root.mapping else {
            throw .malformed(path: path, line: line(of: root), reason: "the file is a mapping of network ids to their settings")
        }
        var parsed: [(id: String, settings: NetworkSettings)] = []
        var lines: [String: Int] = [:]
        for (key, value) in networks {
            guard let written = key.scalar?.string, let id = networkID(written) else {
                throw .malformed(
                    path: path, line: line(of: key),
                    reason: "'\(key.scalar?.string ?? "…")' is no network id (16 hexadecimal digits, as reach networks prints it)")
            }
            if let first = lines[id] {
                throw .malformed(path: path, line: line(of: key), reason: "network \(id) is named again (first on line \(first))")
            }
            lines[id] = line(of: key)
            parsed.append((id, try settings(value, of: id, path: path)))
        }
        return parsed
    }

    private static func settings(_ node: Node, of id: String, path: String) throws(NetworkSettingsError) -> NetworkSettings {
        if node.null != nil { return NetworkSettings() }
        guard let fields = node.mapping else {
            throw .malformed(path: path, line: line(of: node), reason: "network \(id) has no mapping of settings (\(keys.joined(separator: ", ")))")
        }
        var settings = NetworkSettings()
        var seen: Set<String> = []
        for (key, value) in fields {
            let name = key.scalar?.string ?? ""
            guard keys.contains(name) else {
                throw .malformed(path: path, line: line(of: key), reason: "'\(name)' is no setting (\(keys.joined(separator: ", ")))")
            }
            guard seen.insert(name).inserted else {
                throw .malformed(path: path, line: line(of: key), reason: "\(name) is set twice for network \(id)")
            }
            guard let scalar = value.scalar, value.null == nil else {
                throw .malformed(path: path, line: line(of: value), reason: "\(name) of network \(id) has no value")
            }
            switch name {
            case "label":
                if let problem = labelProblem(scalar.string) {
                    throw .malformed(path: path, line: line(of: value), reason: problem)
                }
                settings.label = scalar.string
            case "metered":
                guard let metered = value.bool ?? booleans[scalar.string.lowercased()] else {
                    throw .malformed(path: path, line: line(of: value), reason: "metered is yes or no, not '\(scalar.string)'")
                }
                settings.isMetered = metered
            default:
                if let problem = urlProblem(scalar.string) {
                    throw .malformed(path: path, line: line(of: value), reason: problem)
                }
                settings.validationURL = scalar.string
            }
        }
        return settings
    }

    /// `metered`'s words when quoted, which YAML reads as text: `"yes"` means what `yes` does.
    private static let booleans = ["yes": true, "true": true, "on": true, "no": false, "false": false, "off": false]

    /// `written` as a network id (lowercase), when it is 16 hexadecimal digits.
    package static func networkID(_ written: String) -> String? {
        guard written.utf8.count == 16, written.allSatisfy(\.isHexDigit) else { return nil }
        return written.lowercased()
    }

    /// Why `label` cannot name a network; `nil` when it can: 1 to 64 characters, no control characters, no comma (it
    /// separates `--when`'s conditions), no space at either end, and not 16 hexadecimal digits (which read as an id).
    package static func labelProblem(_ label: String) -> String? {
        let length = label.unicodeScalars.count  // code points: combining marks count, so a label stays short in bytes
        if length == 0 || length > 64 { return "a label has 1 to 64 characters, not \(length)" }
        if label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }) {
            return "a label has no control characters"
        }
        if label.contains(",") { return "a label has no comma: '\(label)'" }
        if label.first!.isWhitespace || label.last!.isWhitespace { return "a label has no space at either end: '\(label)'" }
        if networkID(label) != nil { return "a label is not 16 hexadecimal digits, which read as a network id: '\(label)'" }
        return nil
    }

    /// Why `url` cannot be a validation probe's; `nil` when it can: `http://` or `https://` and a host.
    package static func urlProblem(_ url: String) -> String? {
        let lowered = url.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lowered.hasPrefix($0) }),
            let host = url.dropFirst(scheme.count).split(separator: "/", omittingEmptySubsequences: false).first, !host.isEmpty,
            url.count <= 2048, !url.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } == true })
        else { return "validate is an http:// or https:// URL with a host, not '\(url)'" }
        return nil
    }

    private static func line(of node: Node) -> Int { node.mark?.line ?? 1 }

    /// The deepest flow nesting (`[`, `{`) taken.
    static let flowDepthLimit = 16

    /// The first anchor, alias or too deep flow nesting in `text`, outside quotes and comments, with its line. An
    /// anchor or alias starts a node: first on its line or after `:`, `-`, `?`, `[`, `{`, `,` or a tag (`AT&T` and a
    /// URL's `a=1&b=2` are plain text).
    static func unsupportedConstruct(in text: String) -> (line: Int, reason: String)? {
        var line = 1
        var depth = 0
        var quote: Character?
        var escaped = false
        var inComment = false
        // The last character outside quotes on this line that ended a token or is an indicator, and the token
        // (a run of characters without space) being read.
        var previous: Character?
        var token = ""
        for character in text {
            if character == "\n" || character == "\r\n" {
                (line, token, previous, inComment) = (line + 1, "", nil, false)
                continue
            }
            if inComment { continue }
            if let open = quote {
                if open == "\"" && character == "\\" && !escaped {
                    escaped = true
                    continue
                }
                if character == open && !escaped { (quote, token, previous) = (nil, "", character) }
                escaped = false
                continue
            }
            switch character {
            case " ", "\t":
                token = ""
            case "#" where token.isEmpty:
                inComment = true
            case "\"" where token.isEmpty, "'" where token.isEmpty:
                quote = character
            case "&" where token.isEmpty && startsNode(after: previous), "*" where token.isEmpty && startsNode(after: previous):
                return (line, "anchors and aliases (& and *) are not taken; quote a value that starts with one")
            case "[", "{":
                depth += 1
                if depth > flowDepthLimit { return (line, "nesting deeper than \(flowDepthLimit) is not taken") }
                (token, previous) = ("", character)
            case "]", "}", ",":
                if character != "," { depth = max(0, depth - 1) }
                (token, previous) = ("", character)
            case "!" where token.isEmpty:
                token = "!"  // a tag: the node it tags starts after it
            default:
                token.append(character)
                if !token.hasPrefix("!") { previous = character }
            }
        }
        return nil
    }

    /// Whether a token after `previous` (the line's last indicator or character; `nil` at its start) starts a node.
    private static func startsNode(after previous: Character?) -> Bool {
        previous.map { ":-?[{,".contains($0) } ?? true
    }

    private static func malformed(_ error: YamlError, path: String) -> NetworkSettingsError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            return .malformed(path: path, line: mark.line, reason: "not YAML: \(context.map { "\($0.text) " } ?? "")\(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return .malformed(
                path: path, line: context.mark.line,
                reason: "\(duplicates.joined(separator: ", ")) is named more than once (first on this line)")
        case .reader(let problem, _, _, _):
            return .malformed(path: path, line: 1, reason: "not YAML: \(problem)")
        default:
            return .malformed(path: path, line: 1, reason: "not YAML: \(error)")
        }
    }

    // MARK: - Writing

    /// `text` with network `id`'s entry set to `settings`: the entry's own lines replaced (or added at the end), and
    /// every other line, comments included, as it was. A file this cannot edit so (a flow-style mapping) is written
    /// anew from what it says.
    package static func recording(_ settings: NetworkSettings, for id: String, in text: String, path: String) throws(NetworkSettingsError) -> String {
        let before = try parse(text, path: path)
        var expected = before
        if let position = expected.firstIndex(where: { $0.id == id }) {
            expected[position].settings = settings
        } else {
            expected.append((id, settings))
        }
        let edited = edited(text, setting: entry(id, settings), for: id)
        if let reparsed = try? parse(edited, path: path), reparsed.elementsEqual(expected, by: { $0.id == $1.id && $0.settings == $1.settings }) {
            return edited
        }
        return header + expected.map { entry($0.id, $0.settings) }.joined()
    }

    /// What a file written anew starts with.
    static let header = "# Network settings for reach: a label and overrides per network id (reach networks).\n"

    /// One network's lines.
    static func entry(_ id: String, _ settings: NetworkSettings) -> String {
        var lines = "\(id):\n"
        if let label = settings.label { lines += "  label: \(quoted(label))\n" }
        if let metered = settings.isMetered { lines += "  metered: \(metered ? "yes" : "no")\n" }
        if let url = settings.validationURL { lines += "  validate: \(quoted(url))\n" }
        if settings.isEmpty { lines = "\(id): {}\n" }
        return lines
    }

    /// A YAML double-quoted scalar.
    private static func quoted(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// `text` with the block of lines under the top-level key `id` replaced by `entry`, or `entry` added.
    private static func edited(_ text: String, setting entry: String, for id: String) -> String {
        // Lines as written, their ends aside: a file with CRLF ends keeps them.
        let ending = text.contains("\r\n") ? "\r\n" : "\n"
        // (Swift reads "\r\n" as one character.)
        var lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.map(String.init)
        if lines.last == "" { lines.removeLast() }
        func isTopLevelKey(_ line: String) -> Bool {
            guard let first = line.first else { return false }
            return !first.isWhitespace && first != "#" && line.contains(":")
        }
        func key(_ line: String) -> String {
            let name = line.prefix { $0 != ":" }.trimmingCharacters(in: .whitespaces)
            return name.count >= 2 && (name.first == "\"" || name.first == "'") && name.last == name.first
                ? String(name.dropFirst().dropLast()) : name
        }
        let entryLines = entry.split(separator: "\n").map(String.init)
        if let start = lines.firstIndex(where: { isTopLevelKey($0) && key($0).lowercased() == id }) {
            var end = lines[(start + 1)...].firstIndex(where: { !$0.isEmpty && !($0.first!.isWhitespace) }) ?? lines.endIndex
            // Comments and blank lines just before the next key belong to it.
            while end > start + 1, lines[end - 1].trimmingCharacters(in: .whitespaces).isEmpty
                || lines[end - 1].first == "#" { end -= 1 }
            lines.replaceSubrange(start..<end, with: entryLines)
        } else {
            if lines.isEmpty { lines.append(header.dropLast().description) }
            lines += entryLines
        }
        return lines.joined(separator: ending) + ending
    }
}
