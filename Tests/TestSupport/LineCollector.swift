import Foundation

/// Collects the lines a running process writes to a pipe, for tests that wait for them.
public final class LineCollector: @unchecked Sendable {
    /// Hand this to the process as its standard output.
    public let pipe = Pipe()
    private let lock = NSLock()
    private var pending = Data()
    private var collected: [String] = []

    /// Starts collecting what arrives on ``pipe``.
    public init() {
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            if data.isEmpty {
                handle.readabilityHandler = nil
                return
            }
            self.lock.withLock {
                self.pending.append(data)
                while let newline = self.pending.firstIndex(of: UInt8(ascii: "\n")) {
                    self.collected.append(String(decoding: self.pending[self.pending.startIndex..<newline], as: UTF8.self))
                    self.pending.removeSubrange(self.pending.startIndex...newline)
                }
            }
        }
    }

    /// The lines so far.
    public var lines: [String] { lock.withLock { collected } }

    /// Waits until at least `count` lines arrived or `timeout` passed; returns the lines so far.
    @discardableResult
    public func waitForLines(_ count: Int, timeout: TimeInterval = 10) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while lines.count < count && Date() < deadline { usleep(5_000) }
        return lines
    }

    /// Waits `interval` and returns the lines, to check that nothing more arrives.
    public func linesAfterQuiet(_ interval: TimeInterval = 0.7) -> [String] {
        usleep(useconds_t(interval * 1_000_000))
        return lines
    }
}
