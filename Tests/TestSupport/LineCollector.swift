import Foundation

/// Collects the lines a running process writes to a pipe, for tests that wait for them.
public final class LineCollector: @unchecked Sendable {
    /// Hand this to the process as its standard output.
    public let pipe = Pipe()
    private let lock = NSLock()
    private var pending = Data()  // guarded by `lock`: bytes after the last newline
    private let recorder = Recorder<String>()

    /// Starts collecting what arrives on ``pipe``.
    public init() {
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            if data.isEmpty {
                handle.readabilityHandler = nil
                return
            }
            let lines: [String] = self.lock.withLock {
                self.pending.append(data)
                var lines: [String] = []
                while let newline = self.pending.firstIndex(of: UInt8(ascii: "\n")) {
                    lines.append(String(decoding: self.pending[self.pending.startIndex..<newline], as: UTF8.self))
                    self.pending.removeSubrange(self.pending.startIndex...newline)
                }
                return lines
            }
            lines.forEach(self.recorder.append)
        }
    }

    /// The lines so far.
    public var lines: [String] { recorder.values }

    /// Waits until at least `count` lines arrived or `timeout` passed; returns the lines so far.
    @discardableResult
    public func waitForLines(_ count: Int, timeout: TimeInterval = 10) -> [String] {
        recorder.waitFor(count, timeout: timeout)
    }

    /// Waits `interval` and returns the lines, to check that nothing more arrives.
    public func linesAfterQuiet(_ interval: TimeInterval = 0.7) -> [String] {
        recorder.valuesAfterQuiet(interval)
    }
}
