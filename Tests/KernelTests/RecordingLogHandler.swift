import Logging
import TestSupport

/// A log handler that records each message's text.
struct RecordingLogHandler: LogHandler {
    let messages: Recorder<String>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    init(_ messages: Recorder<String>) { self.messages = messages }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { messages.append(event.message.description) }
}
