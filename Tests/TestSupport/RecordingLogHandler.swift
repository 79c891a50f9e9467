public import Logging

/// A log handler that records each message's text.
public struct RecordingLogHandler: LogHandler {
    /// Every message logged, in order.
    public let messages: Recorder<String>
    /// The handler's metadata, as `LogHandler` requires.
    public var metadata: Logger.Metadata = [:]
    /// Everything is recorded by default.
    public var logLevel: Logger.Level = .trace

    /// A handler that records into `messages`.
    public init(_ messages: Recorder<String>) { self.messages = messages }

    /// One metadata value.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Records the event's message.
    public func log(event: LogEvent) { messages.append(event.message.description) }
}
