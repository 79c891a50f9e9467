/// The part of YAML a web configuration is written in: nested block mappings of plain, single- or double-quoted
/// scalars (any may span lines, as PyYAML wraps a long value or an inline PEM; quoted ones with every escape YAML defines), lists of
/// such scalars (`- item` lines, or `[a, b]`), one-line flow mappings of them (`{}`, `{a: b}`), literal and folded
/// blocks with their indicators (`|`, `|-`, `|+`, `|2`, `>`), and comments, after a byte order mark or none.
/// Anything else (a list of mappings, nested flow collections, anchors, tags) is refused with its line, rather than
/// read wrong. A line inside a block that holds only a comment is taken as a comment.
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
        let raw = text.drop { $0 == "\u{FEFF}" }.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        let lineCount = raw.last?.isEmpty == true ? raw.count - 1 : raw.count  // the text's last newline ends a line
        var blank = 0
        var index = 0
        while index < lineCount {
            let number = index + 1
            var line = raw[index]
            index += 1
            var (content, open) = withoutComment(line, inQuote: nil)
            // A quoted scalar that does not end on its line goes on over the next ones, each read once from where
            // the one before ended (a 1 MiB file of one open quote is one pass, not one pass a line).
            if open != nil {
                var whole = String(line)
                var stripped = 0  // the comment cut from the last line
                while let quote = open, index < lineCount {
                    let next = raw[index]
                    index += 1
                    let (nextContent, stillOpen) = withoutComment(next, inQuote: quote)
                    whole += "\n" + next
                    stripped = next.count - nextContent.count
                    open = stillOpen
                }
                line = whole[...]
                content = whole.dropLast(stripped)
            }
            let trimmed = content.drop { $0 == " " }
            if trimmed.allSatisfy({ $0 == " " || $0 == "\t" }) {
                blank += 1
                continue
            }
            guard !content.prefix(while: { $0 == " " || $0 == "\t" }).contains("\t") else {
                throw Error(line: number, reason: "a tab in the indentation")
            }
            if lines.isEmpty, trimmed.elementsEqual("---") { continue }
            if trimmed.elementsEqual("...") { break }
            let indent = content.count - trimmed.count
            lines.append(Line(number: number, indent: indent, text: trimmed, whole: line.dropFirst(indent), blankBefore: blank))
            blank = 0
        }
        if !lines.isEmpty { lines[lines.count - 1].blankAfter = blank }
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

    /// A line with content: its number, its indentation, what follows it without its comment and with it (a
    /// block's line keeps a `#`), and how many blank lines stand before it (and after it, for the last line).
    private struct Line {
        var number: Int
        var indent: Int
        var text: Substring
        var whole: Substring
        var blankBefore: Int
        var blankAfter = 0
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
            } else if let header = BlockHeader(rest.trimmingTrailingSpaces) {
                mapping[key] = .scalar(try block(all, at: &position, under: indent, header, number))
            } else if rest.first == "[" {
                mapping[key] = .sequence(try flowSequence(rest, number))
            } else if rest.first == "{" {
                mapping[key] = .mapping(try flowMapping(rest.trimmingTrailingSpaces[...], number))
            } else {
                var value = try scalar(rest, number)
                // A plain value goes on over lines indented under its name, as PyYAML wraps a long one: each line
                // break is a space, each blank line a newline.
                while rest.first != "'", rest.first != "\"", position < all.count, all[position].indent > indent {
                    let line = all[position]
                    guard !isItem(line.text), !isMappingEntry(line.text) else { break }
                    value += line.blankBefore > 0 ? String(repeating: "\n", count: line.blankBefore) : " "
                    value += line.text.trimmingTrailingSpaces
                    position += 1
                }
                mapping[key] = .scalar(value)
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
        var items: [String] = []
        for item in try flowItems(text.dropFirst().dropLast(), number) { items.append(try scalar(item, number)) }
        return items
    }

    /// The comma-separated items of a flow collection's inside, outside quotes; none may be a collection itself.
    private static func flowItems(_ inner: Substring, _ number: Int) throws(Error) -> [Substring] {
        var items: [Substring] = []
        var start = inner.startIndex
        var quote: Character?
        for index in inner.indices {
            let character = inner[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if "[]{}".contains(character) {
                throw Error(line: number, reason: "only plain or quoted values are read in a '[' list or '{' mapping")
            } else if character == "," {
                let item = inner[start..<index].drop { $0 == " " }
                guard !item.isEmpty else { throw Error(line: number, reason: "an empty item in a list") }
                items.append(item)
                start = inner.index(after: index)
            }
        }
        let last = inner[start...].drop { $0 == " " }
        if !last.isEmpty { items.append(last) } else if !items.isEmpty {
            throw Error(line: number, reason: "an empty item in a list")
        }
        return items
    }

    /// `{a: b, 'c': "d"}` or `{}`: a flow mapping of plain or quoted scalars on one line.
    private static func flowMapping(_ text: Substring, _ number: Int) throws(Error) -> [String: BlockMapping] {
        guard text.last == "}" else { throw Error(line: number, reason: "a mapping '{' without its closing '}' on its line") }
        var mapping: [String: BlockMapping] = [:]
        for entry in try flowItems(text.dropFirst().dropLast(), number) {
            let (key, value) = try splitKey(entry, number)
            guard mapping[key] == nil else { throw Error(line: number, reason: "'\(key.prefix(60))' is given twice") }
            mapping[key] = .scalar(try scalar(value, number))
        }
        return mapping
    }

    /// A block scalar's header: `|` (literal) or `>` (folded), then at most an indentation digit and a chomping sign,
    /// in either order.
    private struct BlockHeader {
        var folded: Bool
        /// The block's indentation beyond its name's, when the header gives it.
        var indentation: Int?
        /// `-` strips the final line breaks, `+` keeps them all, none keeps one.
        var chomping: Character?

        init?(_ text: String) {
            guard let first = text.first, first == "|" || first == ">", text.count <= 3 else { return nil }
            folded = first == ">"
            for character in text.dropFirst() {
                if let digit = character.wholeNumberValue, character.isASCII, digit > 0, indentation == nil {
                    indentation = digit
                } else if character == "-" || character == "+", chomping == nil {
                    chomping = character
                } else {
                    return nil
                }
            }
        }
    }

    /// A block scalar (`|` or `>`): the lines indented under its name, less the block's indentation (the first
    /// line's, or the header's), blank lines within it kept; a folded block joins lines of the same indentation with
    /// a space.
    private static func block(_ all: [Line], at position: inout Int, under indent: Int, _ header: BlockHeader, _ number: Int)
        throws(Error) -> String
    {
        let blockIndent = header.indentation.map { indent + $0 } ?? (position < all.count ? all[position].indent : 0)
        var text = ""
        var first = true
        var previousMoreIndented = false
        while position < all.count, all[position].indent > indent {
            let line = all[position]
            guard line.indent >= blockIndent else {
                throw Error(line: line.number, reason: "indented less than its block's first line")
            }
            let content = String(repeating: " ", count: line.indent - blockIndent) + line.whole
            let moreIndented = line.indent > blockIndent
            // Between two lines a line break, and one for each blank line; a folded block turns the break between two
            // lines of its own indentation into a space, or drops it where blank lines stand between them.
            let folds = !first && header.folded && !moreIndented && !previousMoreIndented
            let breaks = line.blankBefore + (first || folds ? 0 : 1)
            text += folds && breaks == 0 ? " " : String(repeating: "\n", count: breaks)
            text += content
            first = false
            previousMoreIndented = moreIndented
            position += 1
        }
        guard !first else { return "" }
        switch header.chomping {
        case "-": return text
        case "+":  // the last line's break and every blank line after it
            let trailing = position < all.count ? all[position].blankBefore : all[position - 1].blankAfter
            return text + String(repeating: "\n", count: 1 + trailing)
        default: return text + "\n"
        }
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

    /// A plain, single-quoted (`''` is a quote) or double-quoted (YAML's escapes) scalar; a quoted one's line breaks
    /// fold as YAML folds them (one is a space, each blank line a newline, `\` at a line's end joins).
    private static func scalar(_ text: Substring, _ number: Int) throws(Error) -> String {
        guard let first = text.first else { return "" }
        switch first {
        case "'", "\"":
            let body = text.trimmingTrailingSpaces
            guard body.count >= 2, body.last == first else {
                throw Error(line: number, reason: "a quoted value without its closing quote")
            }
            return try folded(body.dropFirst().dropLast(), escapes: first == "\"", number)
        case "|", ">", "&", "*", "!", "[", "{":
            throw Error(line: number, reason: "only plain or quoted values are read here")
        default:
            return String(text).trimmingTrailingSpaces
        }
    }

    /// A quoted scalar's inside, its lines folded and, in double quotes, its escapes read.
    private static func folded(_ inner: Substring, escapes: Bool, _ number: Int) throws(Error) -> String {
        let lines = inner.split(separator: "\n", omittingEmptySubsequences: false)
        var result = ""
        var blankLines = 0
        var joined = false  // the line before ended in an escaped line break
        for (index, raw) in lines.enumerated() {
            var line = index == 0 ? raw : raw.drop { $0 == " " || $0 == "\t" }
            let isLast = index == lines.count - 1
            if !isLast {
                while let last = line.last, last == " " || last == "\t" { line = line.dropLast() }
            }
            if index > 0, !joined {
                if line.isEmpty, !isLast {
                    blankLines += 1
                    continue
                }
                result += blankLines > 0 ? String(repeating: "\n", count: blankLines) : " "
                blankLines = 0
            }
            let trailingBackslashes = line.reversed().prefix { $0 == "\\" }.count
            joined = escapes && !isLast && trailingBackslashes % 2 == 1
            if joined { line = line.dropLast() }
            result += escapes ? try unescaped(line, number) : String(line).replacing("''", with: "'")
        }
        return result
    }

    /// A double-quoted line with YAML's escapes replaced: `\0 \a \b \t \n \v \f \r \e \  \" \/ \\ \N \_ \L \P`,
    /// `\xXX`, `\uXXXX` and `\UXXXXXXXX`.
    private static func unescaped(_ line: Substring, _ number: Int) throws(Error) -> String {
        var result = ""
        var scalars = line.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "\\" else {
                result.unicodeScalars.append(scalar)
                continue
            }
            guard let code = scalars.popFirst() else { throw Error(line: number, reason: "a quoted value ends in '\\'") }
            if let replacement = Self.escapes[code] {
                result.unicodeScalars.append(replacement)
                continue
            }
            let digits = code == "x" ? 2 : code == "u" ? 4 : code == "U" ? 8 : 0
            let hex = String(String.UnicodeScalarView(scalars.prefix(digits)))
            guard digits > 0, hex.count == digits, let value = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(value)
            else { throw Error(line: number, reason: "'\\\(code)' is no escape YAML reads in a quoted value") }
            result.unicodeScalars.append(decoded)
            scalars = scalars.dropFirst(digits)
        }
        return result
    }

    /// YAML's one-character escapes in double quotes.
    private static let escapes: [Unicode.Scalar: Unicode.Scalar] = [
        "0": "\0", "a": "\u{07}", "b": "\u{08}", "t": "\t", "\t": "\t", "n": "\n", "v": "\u{0B}", "f": "\u{0C}",
        "r": "\r", "e": "\u{1B}", " ": " ", "\"": "\"", "/": "/", "\\": "\\", "N": "\u{85}", "_": "\u{A0}",
        "L": "\u{2028}", "P": "\u{2029}",
    ]

    /// The line before a comment (`#` at its start or after a space, outside quotes), and the quote still open at its
    /// end, if any; `inQuote` is the quote the line starts in (a quoted scalar from the lines before). A quote opens a
    /// quoted scalar only where a value starts (after `: `, `- `, or `[`, `{` or `,` of a flow collection): within a
    /// plain value it is a character like any other.
    private static func withoutComment(_ line: Substring, inQuote: Character?) -> (Substring, open: Character?) {
        var quote = inQuote
        var previous: Character = " "
        var valueStarts = inQuote == nil
        var flowDepth = 0
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            let next = line.index(after: index)
            let spaceFollows = next == line.endIndex || line[next] == " " || line[next] == "\t"
            if let open = quote {
                if open == "\"", character == "\\" {
                    index = next  // an escaped character, whatever it is
                    if index == line.endIndex { break }
                } else if character == open {
                    if open == "'", next < line.endIndex, line[next] == "'" {
                        index = next  // '' is a quote within single quotes
                    } else {
                        quote = nil
                    }
                }
            } else if character == "#", previous == " " || previous == "\t" {
                return (line[..<index], nil)
            } else if character == "'" || character == "\"" {
                if valueStarts { quote = character }
                valueStarts = false
            } else if character == ":" || character == "-" {
                valueStarts = spaceFollows && (character == ":" || valueStarts)
            } else if (character == "[" || character == "{") && valueStarts {
                flowDepth += 1
            } else if character == "," && flowDepth > 0 {
                valueStarts = true
            } else if character != " " && character != "\t" {
                valueStarts = false
            }
            previous = line[index]
            index = line.index(after: index)
        }
        return (line, quote)
    }
}

extension StringProtocol {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self[...]
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
