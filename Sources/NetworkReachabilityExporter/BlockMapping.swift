/// The part of YAML a web configuration is written in: nested block mappings of plain, single- or double-quoted
/// scalars, lists of such scalars (`- item` lines, or `[a, b]`), literal blocks (`|`, `|-`: an inline PEM
/// certificate), and comments. Anything else (a list of mappings, flow mappings, anchors, folded scalars) is refused
/// with its line, rather than read wrong.
///
/// Not Yams: it links the whole of Foundation into `reach`, 6.5 MiB more resident memory for every command, to read
/// a file of a dozen lines that only `serve --web-config` reads.
enum BlockMapping: Equatable {
    case scalar(String)
    case sequence([String])
    case mapping([String: BlockMapping])

    /// Why a text is not a block mapping this reader takes.
    struct Error: Swift.Error, Equatable, CustomStringConvertible {
        var line: Int
        var reason: String

        var description: String { "line \(line): \(reason)" }
    }

    /// Parses `text`; an empty document is an empty mapping.
    static func parse(_ text: String) throws(Error) -> [String: BlockMapping] {
        var lines: [Line] = []
        // "\r\n" is one Character in Swift: split on it as on "\n" (a file written on Windows).
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .enumerated()
        {
            let number = index + 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let content = try withoutComment(line, number)
            let trimmed = content.drop { $0 == " " }
            if trimmed.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            guard !content.prefix(while: { $0 == " " || $0 == "\t" }).contains("\t") else {
                throw Error(line: number, reason: "a tab in the indentation")
            }
            if lines.isEmpty, trimmed.elementsEqual("---") { continue }
            if trimmed.elementsEqual("...") { break }
            lines.append(Line(number: number, indent: content.count - trimmed.count, text: trimmed))
        }
        var position = 0
        let mapping = try parseMapping(lines, at: &position, indent: lines.first?.indent ?? 0)
        if position < lines.count {
            throw Error(line: lines[position].number, reason: "indented less than the mapping it ends, or more")
        }
        return mapping
    }

    /// The scalar's text, or `nil` for a mapping or a list.
    var text: String? {
        if case .scalar(let text) = self { return text }
        return nil
    }

    /// The list's items; an empty scalar (`key:` with nothing after it) is an empty list; `nil` for anything else.
    var items: [String]? {
        switch self {
        case .sequence(let items): items
        case .scalar(let text) where text.isEmpty: []
        case .scalar, .mapping: nil
        }
    }

    // MARK: - Reading

    /// A line with content: its number, its indentation and what follows it.
    private struct Line {
        var number: Int
        var indent: Int
        var text: Substring
    }

    private static func parseMapping(_ all: [Line], at position: inout Int, indent: Int) throws(Error) -> [String: BlockMapping] {
        var mapping: [String: BlockMapping] = [:]
        while position < all.count, all[position].indent == indent {
            let (number, text) = (all[position].number, all[position].text)
            guard let first = text.first, !"-[{&*!|>%@`".contains(first) else {
                throw Error(line: number, reason: "only names with values are read here (no list of mappings, flow style or tags)")
            }
            let (key, rest) = try splitKey(text, number)
            guard mapping[key] == nil else { throw Error(line: number, reason: "'\(key.prefix(60))' is given twice") }
            position += 1
            if rest.isEmpty {
                if position < all.count, isItem(all[position].text), all[position].indent >= indent {
                    // A list's `-` may stand under its name's first letter, as exporter-toolkit's examples write it.
                    mapping[key] = .sequence(try parseSequence(all, at: &position, indent: all[position].indent))
                } else if position < all.count, all[position].indent > indent {
                    mapping[key] = .mapping(try parseMapping(all, at: &position, indent: all[position].indent))
                } else {
                    mapping[key] = .scalar("")
                }
            } else if rest == "|" || rest == "|-" {
                mapping[key] = .scalar(try literal(all, at: &position, under: indent, keepingNewline: rest == "|"))
            } else if rest.first == "[" {
                mapping[key] = .sequence(try flowSequence(rest, number))
            } else {
                mapping[key] = .scalar(try scalar(rest, number))
            }
        }
        if position < all.count, all[position].indent > indent {
            throw Error(line: all[position].number, reason: "indented more than the line before allows")
        }
        return mapping
    }

    /// Whether a line is a list's item: `-` alone or followed by a space.
    private static func isItem(_ text: Substring) -> Bool {
        text == "-" || text.hasPrefix("- ")
    }

    /// The items of a block list at `indent`, each a plain or quoted scalar.
    private static func parseSequence(_ all: [Line], at position: inout Int, indent: Int) throws(Error) -> [String] {
        var items: [String] = []
        while position < all.count, all[position].indent == indent, isItem(all[position].text) {
            let (number, rest) = (all[position].number, all[position].text.dropFirst().drop { $0 == " " })
            guard !rest.isEmpty, rest.first != "-", !isMappingEntry(rest) else {
                throw Error(line: number, reason: "only lists of plain or quoted values are read here")
            }
            items.append(try scalar(rest, number))
            position += 1
        }
        return items
    }

    /// Whether an item's text is `name: value` (a list of mappings, which no web configuration key takes).
    private static func isMappingEntry(_ text: Substring) -> Bool {
        guard let first = text.first, first != "'", first != "\"" else { return false }
        return text.indices.contains { text[$0] == ":" && (text.index(after: $0) == text.endIndex || text[text.index(after: $0)] == " ") }
    }

    /// `[a, 'b', "c"]`: a flow list of plain or quoted scalars on one line.
    private static func flowSequence(_ text: Substring, _ number: Int) throws(Error) -> [String] {
        guard text.last == "]" else { throw Error(line: number, reason: "a list '[' without its closing ']' on its line") }
        let inner = text.dropFirst().dropLast()
        var items: [String] = []
        var start = inner.startIndex
        var quote: Character?
        for index in inner.indices {
            let character = inner[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if "[]{}".contains(character) {
                throw Error(line: number, reason: "only lists of plain or quoted values are read here")
            } else if character == "," {
                let item = inner[start..<index].drop { $0 == " " }
                guard !item.isEmpty else { throw Error(line: number, reason: "an empty item in a list") }
                items.append(try scalar(item, number))
                start = inner.index(after: index)
            }
        }
        let last = inner[start...].drop { $0 == " " }
        if !last.isEmpty { items.append(try scalar(last, number)) } else if !items.isEmpty {
            throw Error(line: number, reason: "an empty item in a list")
        }
        return items
    }

    /// A literal block (`|`): the lines indented under its name, less the first one's indentation, each ending in a
    /// newline (`|-`: but the last). Blank lines within it are not kept (a PEM block has none).
    private static func literal(_ all: [Line], at position: inout Int, under indent: Int, keepingNewline: Bool)
        throws(Error) -> String
    {
        var lines: [String] = []
        let blockIndent = position < all.count ? all[position].indent : 0
        while position < all.count, all[position].indent > indent {
            guard all[position].indent >= blockIndent else {
                throw Error(line: all[position].number, reason: "indented less than its block's first line")
            }
            lines.append(String(repeating: " ", count: all[position].indent - blockIndent) + all[position].text)
            position += 1
        }
        let text = lines.joined(separator: "\n")
        return keepingNewline && !lines.isEmpty ? text + "\n" : text
    }

    /// `key: rest`, the key unquoted.
    private static func splitKey(_ text: Substring, _ number: Int) throws(Error) -> (String, Substring) {
        var index = text.startIndex
        let key: String
        if let quote = text.first, quote == "\"" || quote == "'" {
            guard let end = text[text.index(after: index)...].firstIndex(of: quote) else {
                throw Error(line: number, reason: "a quoted name without its closing quote")
            }
            key = String(text[text.index(after: index)..<end])
            index = text.index(after: end)
            guard text[index...].hasPrefix(":") else { throw Error(line: number, reason: "a name without ':' after it") }
        } else {
            guard
                let colon = text.indices.first(where: {
                    text[$0] == ":" && (text.index(after: $0) == text.endIndex || text[text.index(after: $0)] == " ")
                })
            else { throw Error(line: number, reason: "not 'name: value'") }
            key = String(text[..<colon]).trimmingTrailingSpaces
            index = colon
        }
        guard !key.isEmpty else { throw Error(line: number, reason: "an empty name") }
        let rest = text[text.index(after: index)...].drop { $0 == " " }
        return (key, rest)
    }

    /// A plain, single-quoted (`''` is a quote) or double-quoted (`\"`, `\\`) scalar.
    private static func scalar(_ text: Substring, _ number: Int) throws(Error) -> String {
        guard let first = text.first else { return "" }
        switch first {
        case "'":
            guard text.count >= 2, text.last == "'" else {
                throw Error(line: number, reason: "a quoted value without its closing quote")
            }
            return String(text.dropFirst().dropLast()).replacing("''", with: "'")
        case "\"":
            guard text.count >= 2, text.last == "\"" else {
                throw Error(line: number, reason: "a quoted value without its closing quote")
            }
            var result = ""
            var escaped = false
            for character in text.dropFirst().dropLast() {
                if escaped {
                    guard character == "\"" || character == "\\" else {
                        throw Error(line: number, reason: "only \\\" and \\\\ are read in a quoted value")
                    }
                    result.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else {
                    result.append(character)
                }
            }
            guard !escaped else { throw Error(line: number, reason: "a quoted value ends in '\\'") }
            return result
        case "|", ">", "&", "*", "!", "[", "{":
            throw Error(line: number, reason: "only plain or quoted values are read here")
        default:
            return String(text).trimmingTrailingSpaces
        }
    }

    /// The line before a comment: `#` at its start or after a space, outside quotes.
    private static func withoutComment(_ line: Substring, _ number: Int) throws(Error) -> Substring {
        var quote: Character?
        var previous: Character = " "
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                if previous == " " || previous == ":" { quote = character }
            } else if character == "#", previous == " " || previous == "\t" {
                return line[..<index]
            }
            previous = character
        }
        return line
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self[...]
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
