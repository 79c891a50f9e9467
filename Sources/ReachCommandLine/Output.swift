import FoundationEssentials
package import Synchronization
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Writes whole lines straight to a descriptor: each line leaves the process at once (no stdio buffer
/// to flush before exit), and one `write` per line keeps lines of concurrent targets from interleaving.
package enum Output {
    /// Writes `text` and a newline with one `write`; on a closed descriptor, nothing.
    package static func line(_ text: String, to descriptor: Int32 = STDOUT_FILENO) {
        let isOutput = descriptor == STDOUT_FILENO
        if isOutput, outputWasClosed.load(ordering: .relaxed), endsOnClosedOutput.load(ordering: .relaxed) { endProcess(0) }
        // EPIPE (the reader went), EBADF, EIO: the line cannot be written, now or later.
        if !bytes(Array((text + "\n").utf8)[...], to: descriptor) && isOutput && endsOnClosedOutput.load(ordering: .relaxed) {
            endProcess(0)
        }
    }

    /// Writes `bytes` whole to `descriptor`, again after a signal; whether they were written (false: the descriptor
    /// failed or was closed, and nothing more can be written to it).
    @discardableResult
    package static func bytes(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Whether a write to a closed stdout ends the process with exit 0: `watch` has nothing more to do.
    package static let endsOnClosedOutput = Atomic(false)
    /// Whether stdout was closed when the process started (`reach watch >&-`): then nothing can be written to it.
    package static let outputWasClosed = Atomic(false)

    /// Opens each of stdin, stdout and stderr that the process started without on `/dev/null`, before any other
    /// descriptor is opened: otherwise the first socket or eventfd would take its number, and lines meant for the
    /// terminal would be written into it.
    package static func takeStandardDescriptors() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            // The lowest free number is this one: the loop takes them in order.
            let opened = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if descriptor == STDOUT_FILENO, opened == STDOUT_FILENO { outputWasClosed.store(true, ordering: .relaxed) }
        }
    }

    package static func error(_ text: String) { line(text, to: STDERR_FILENO) }

    /// How every line the programs write on stderr begins, whichever of them writes it (`reach queue` is `reach-queue`).
    package static let prefix = "reach: "

    /// Writes `message` on stderr as the programs say things: `reach: message`.
    package static func say(_ message: String) { error(prefix + message) }

    /// Ends the process with `code` (commands have an `exit` of their own that hides the C library's).
    package static func endProcess(_ code: Int32) -> Never { exit(code) }

    /// `value` as one line of JSON, keys sorted so lines are stable, slashes unescaped (URLs stay readable).
    ///
    /// Characters a terminal does not show as characters (C1 controls such as NEL, format characters such as a
    /// bidirectional override, line and paragraph separators) are written as `\u` escapes, as the encoder writes the
    /// C0 controls: a name or a command line in the output cannot reorder or break what a terminal shows.
    package static func jsonLine(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        guard text.unicodeScalars.contains(where: isUnshown) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isUnshown(scalar) else {
                escaped.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                escaped.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            }
        }
        return String(escaped)
    }

    /// Whether `scalar` is one a terminal acts on or hides rather than shows (beyond ASCII: the encoder escapes
    /// ASCII's controls itself).
    private static func isUnshown(_ scalar: Unicode.Scalar) -> Bool {
        guard !scalar.isASCII else { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}
