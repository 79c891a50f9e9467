/// The output interface each destination's route used last time, so a synchronous read can ask for
/// the route and that link in one `sendmsg` (one round trip when, as usual, the route has not moved).
final class OutputInterfaceHints: Sendable {
    /// Enough for every destination a process plausibly reads; beyond it the table starts over.
    static let capacity = 4096

    // Guarded by its lock.
    private let hints = Locked([IPAddress: Int]())

    /// The interface `destination` left through last time, if known.
    func hint(for destination: IPAddress) -> Int? {
        hints.withLock { $0[destination] }
    }

    /// Remembers where `destination` leaves through now.
    func remember(_ interface: Int?, for destination: IPAddress) {
        hints.withLock {
            if $0.count >= Self.capacity { $0.removeAll() }
            $0[destination] = interface
        }
    }
}
