import Logging

/// A log handler that records each message's text.
public struct RecordingLogHandler: LogHandler {
    public let messages: Recorder<String>
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(_ messages: Recorder<String>) { self.messages = messages }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) { messages.append(event.message.description) }
}
