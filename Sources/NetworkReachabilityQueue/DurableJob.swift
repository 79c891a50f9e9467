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

    /// The payload decoded as `type`.
    ///
    /// - Throws: `DecodingError` when it is not a `type`'s JSON (a payload of an older version of your type).
    public func payload<Payload: Decodable>(as type: Payload.Type) throws -> Payload {
        try JSONDecoder().decode(type, from: Data(payload))
    }
}
