public import Foundation

/// Collects the lines a running process writes to a pipe, for tests that wait for them.
public final class LineCollector: @unchecked Sendable {
    /// Hand this to the process as its standard output.
    public let pipe = ExclusivePipe()
    private let recorder = Recorder<String>()

    /// Starts a thread that reads ``pipe`` until end-of-file (when the process ends), splitting lines.
    public init() {
        let pipe = pipe
        let recorder = recorder
        Thread {
            var pending = Data()
            while true {
                let data = pipe.readSome()
                if data.isEmpty { break }
                pending.append(data)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    recorder.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
        }.start()
    }

    /// The lines so far.
    public var lines: [String] { recorder.values }

    /// Waits until at least `count` lines arrived or `timeout` passed; returns the lines so far.
    @discardableResult
    public func waitForLines(_ count: Int, timeout: TimeInterval = 10) -> [String] {
        recorder.waitFor(count, timeout: timeout)
    }

    /// Waits until a line after the first `skipping` ones satisfies `matches`; returns it, or `nil` after `timeout`.
    public func waitForLine(
        after skipping: Int = 0, timeout: TimeInterval = 10, where matches: (String) -> Bool
    ) -> String? {
        var found: String?
        _ = eventually(timeout: timeout) {
            found = lines.dropFirst(skipping).first(where: matches)
            return found != nil
        }
        return found
    }

    /// Waits `interval` and returns the lines, to check that nothing more arrives.
    public func linesAfterQuiet(_ interval: TimeInterval = 0.7) -> [String] {
        recorder.valuesAfterQuiet(interval)
    }
}
