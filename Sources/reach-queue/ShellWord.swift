/// An argument written as a shell reads it back, and as a terminal shows it without being driven by it: bare when it
/// is plain, in single quotes when it is printable, and in ANSI-C quotes (`$'…'`, as bash, zsh and ksh read them)
/// when it holds a control character, an invisible format character (a bidirectional override, say) or bytes that
/// are not UTF-8, each written as an escape. So a job's command can neither clear the screen, move the cursor, nor
/// print what looks like another job's line.
enum ShellWord {
    /// `bytes` as the shell would read them back.
    static func quoted(_ bytes: [UInt8]) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { return ansiC(bytes) }
        if !text.isEmpty && text.unicodeScalars.allSatisfy(isPlain) { return text }
        if text.unicodeScalars.allSatisfy(isShown) { return "'" + text.replacing("'", with: "'\\''") + "'" }
        return ansiC(bytes)
    }

    /// `text` as the shell would read it back.
    static func quoted(_ text: String) -> String { quoted(Array(text.utf8)) }

    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_./:=@%+,".unicodeScalars.contains(scalar))
    }

    /// Whether a terminal shows it as a character: not a control, format or line/paragraph separator character.
    private static func isShown(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: false
        default: true
        }
    }

    /// `$'…'`: printable ASCII as it is (quote and backslash escaped), the common controls by name, every other
    /// byte as `\xHH`; UTF-8 text keeps its shown characters.
    private static func ansiC(_ bytes: [UInt8]) -> String {
        var quoted = "$'"
        let text = String(validating: bytes, as: UTF8.self)
        let scalars = text.map { Array($0.unicodeScalars) } ?? bytes.map { Unicode.Scalar($0) }
        for scalar in scalars {
            switch scalar {
            case "'": quoted += "\\'"
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case "\r": quoted += "\\r"
            case "\u{1B}": quoted += "\\e"
            case " "..."~": quoted.unicodeScalars.append(scalar)
            default:
                if text != nil && !scalar.isASCII && isShown(scalar) {
                    quoted.unicodeScalars.append(scalar)
                } else if text != nil && !scalar.isASCII {
                    quoted += "\\U" + hex(scalar.value, digits: 8)
                } else {
                    quoted += "\\x" + hex(scalar.value, digits: 2)
                }
            }
        }
        return quoted + "'"
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
