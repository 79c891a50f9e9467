package import Logging
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A daemon's log on stderr, one line a message, as `--log-format` asks: `text` (`reach: warning: …`, what a person
/// reads and the other commands print), `logfmt` or `json` (what node_exporter writes, and Loki or journald's
/// readers parse: `time`, `level`, `msg` and the message's metadata).
package struct LineLogHandler: LogHandler {
    /// How each line is written.
    package enum Format: String, CaseIterable, Sendable {
        case text, logfmt, json
    }

    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level
    private let format: Format

    package init(format: Format, level: Logger.Level) {
        self.format = format
        logLevel = level
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }.sorted { $0.key < $1.key }
        Output.error(Self.line(format, level: event.level, message: "\(event.message)", metadata: all, time: Self.now()))
    }

    /// One line of `format`.
    static func line(
        _ format: Format, level: Logger.Level, message: String, metadata: [(key: String, value: Logger.MetadataValue)],
        time: String
    ) -> String {
        switch format {
        case .text:
            let prefix =
                switch level {
                case .trace, .debug: "debug: "
                case .notice: "note: "
                case .warning: "warning: "
                case .info, .error, .critical: ""
                }
            return Output.prefix + "\(prefix)\(message)" + metadata.map { " \($0.key)=\($0.value)" }.joined()
        case .logfmt:
            let pairs = [("time", time), ("level", name(level)), ("msg", message)] + metadata.map { ($0.key, "\($0.value)") }
            return pairs.map { "\($0.0)=\(logfmt($0.1))" }.joined(separator: " ")
        case .json:
            let pairs = [("time", time), ("level", name(level)), ("msg", message)] + metadata.map { ($0.key, "\($0.value)") }
            return "{" + pairs.map { "\(json($0.0)):\(json($0.1))" }.joined(separator: ",") + "}"
        }
    }

    /// The level as Go's slog and node_exporter name it.
    private static func name(_ level: Logger.Level) -> String {
        switch level {
        case .trace, .debug: "debug"
        case .info, .notice: "info"
        case .warning: "warn"
        case .error, .critical: "error"
        }
    }

    /// A logfmt value: bare when it has no space, quote, `=` or control character, else quoted with `\"`, `\\` and
    /// `\n` escaped.
    static func logfmt(_ value: String) -> String {
        let bare = !value.isEmpty && value.unicodeScalars.allSatisfy { $0.value > 0x20 && $0 != "\"" && $0 != "=" && $0.value != 0x7F }
        guard !bare else { return value }
        return "\"" + escaped(value) + "\""
    }

    /// A JSON string.
    static func json(_ value: String) -> String {
        "\"" + escaped(value) + "\""
    }

    /// `value` with quotes, backslashes and control characters escaped as JSON escapes them.
    private static func escaped(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The time now in RFC 3339 with milliseconds, UTC, as node_exporter writes it: `2026-11-29T02:55:00.123Z`.
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliseconds = Int(spec.tv_nsec / 1_000_000)
        let fraction = String(repeating: "0", count: 3 - "\(milliseconds)".count) + "\(milliseconds)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }
}
