import ArgumentParser

/// The queue's file as typed: any path but an empty one, which names no file (bad input, not a file that cannot be
/// opened).
enum QueueFilePath {
    @Sendable static func parser(_ text: String) throws -> String {
        guard !text.isEmpty else { throw ValidationError("must be the path of the queue's file") }
        return text
    }
}
