import Foundation

/// One run of a job of a ``DurableWorkQueue``, as its handler gets it.
public struct DurableJob: Sendable {
    /// The job's id, increasing in order of submission; the same in every attempt and after a restart.
    public let id: Int64
    /// The kind it was submitted as, which chose the handler.
    public let kind: String
    /// Which attempt this is, from 1; a run the process did not finish counts as one.
    public let attempt: Int
    /// The payload's JSON, as submitted.
    public let payload: [UInt8]
    /// Where `write` goes: the job's output in the file.
    let output: JobOutput?

    init(id: Int64, kind: String, attempt: Int, payload: [UInt8], output: JobOutput? = nil) {
        self.id = id
        self.kind = kind
        self.attempt = attempt
        self.payload = payload
        self.output = output
    }

    /// Appends `bytes` to this attempt's output, kept in the file with the job (its last 64 KiB) and shown by
    /// ``DurableWorkQueue/output(of:)`` and `reach queue log`. Each attempt's output replaces the last one's.
    public func write(_ bytes: [UInt8]) { output?.write(bytes) }

    /// Appends `text`'s UTF-8 to this attempt's output.
    public func write(_ text: String) { write(Array(text.utf8)) }

    /// The payload decoded as `type`.
    ///
    /// - Throws: `DecodingError` when it is not a `type`'s JSON (a payload of an older version of your type).
    public func payload<Payload: Decodable>(as type: Payload.Type) throws -> Payload {
        try JSONDecoder().decode(type, from: Data(payload))
    }
}
