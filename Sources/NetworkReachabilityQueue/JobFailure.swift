/// What a ``DurableWorkQueue`` handler throws to say how its attempt failed: with an exit status to record, or as a
/// failure no retry can mend (a payload the server rejects as malformed), after which the job is failed at once.
/// Any other error a handler throws is a failed attempt, retried as its policy says.
public struct JobFailure: Error, Sendable, CustomStringConvertible {
    /// Why the attempt failed, as the job's last error.
    public var reason: String
    /// The status to record with the job, as a command's exit status: `reach queue wait` exits with it.
    public var exitStatus: Int32?
    /// Whether the job fails for good now, whatever attempts it has left; the jobs that follow it fail with it.
    public var isPermanent: Bool

    /// A failed attempt, retried unless `isPermanent`.
    public init(_ reason: String, exitStatus: Int32? = nil, isPermanent: Bool = false) {
        self.reason = reason
        self.exitStatus = exitStatus
        self.isPermanent = isPermanent
    }

    public var description: String { reason }
}
