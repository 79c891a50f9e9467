import Dispatch
import NetworkReachabilityPOSIX
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How the programs take signals, in one place. Each signal a program handles is unblocked first: a parent's blocked
/// mask is inherited across exec (Swift Testing's threads block SIGINT and SIGTERM), and a program that cannot be
/// stopped is worse than none.
package enum ProcessSignals {
    /// Unblocks `signals` for the process.
    package static func unblock(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signalNumber in signals { sigaddset(&set, signalNumber) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Ends the process with `_exit(0)` on each of `signals`, from the signal handler itself: no thread or queue
    /// waits for them (`reach watch`, which starts none, so that nothing wakes while the network is quiet). Only for
    /// a program whose every line is already written whole when a signal comes.
    package static func exitOnEach(_ signals: [Int32]) {
        for signalNumber in signals { signal(signalNumber) { _ in _exit(0) } }
        unblock(signals)
    }

    /// Calls `handler` with the signal's number on a queue of its own whenever one of `signals` arrives, their
    /// default action replaced; the sources live as long as the process.
    package static func handle(_ signals: [Int32], label: String, _ handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: label)
        for signalNumber in signals {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { handler(signalNumber) }
            source.resume()
            sources.withLock { $0.append(KeptSource(source: source)) }
        }
        unblock(signals)
    }

    /// The signal sources, kept for the process's life.
    private static let sources = Locked<[KeptSource]>([])

    /// A Dispatch source, which libdispatch makes safe to use from any thread; Swift's Dispatch on Linux does not
    /// say so in its type, and only the lock above ever touches this one.
    private struct KeptSource: @unchecked Sendable {
        let source: any DispatchSourceSignal
    }
}
