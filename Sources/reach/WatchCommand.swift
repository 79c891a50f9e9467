import ArgumentParser
import Dispatch
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import NetworkReachabilityKit
import NetworkReachabilityValidation
import ReachCommandLine
import Synchronization

/// `reach watch`: prints each target's state, then one line per change, until SIGINT or SIGTERM.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each target's state, then a line whenever its flags or path change, until interrupted."
    )

    @Argument(help: TargetOptions.targetsHelp)
    var targets: [String] = []

    @OptionGroup var targetOptions: TargetOptions

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @Flag(help: TargetOptions.qualityHelp)
    var quality = false

    @OptionGroup var logging: VerboseOption

    func validate() throws { _ = try targetOptions.parse(targets) }

    func run() throws {
        let parsed = try targetOptions.parsed(targets)
        let arguments = parsed.arguments
        let configuration = parsed.validation
        let logger = logging.logger
        let watched = Array(
            zip(arguments, try targetOptions.reachabilities(of: parsed, logger: logger, measuringQuality: quality)))
        NetworkSettingsStart.start(logger: logger)
        RadioDetailsStart.start(verbose: logging.verbose, logger: logger)
        ProcessSignals.exitOnEach([SIGINT, SIGTERM])  // every line is written whole: `_exit` loses nothing
        Self.endOnClosedOutput()
        let printer = SnapshotPrinter(json: json)
        // Lines are printed on the monitor's own thread as each change is evaluated, and this thread blocks until
        // listening ends or stdout's reader goes: no hop to another thread per change, and no Dispatch or
        // Swift-concurrency worker ever started, so nothing wakes while the network is quiet (an idle worker pool
        // keeps a one-second timer).
        let ended = EndSignal()
        var validator: ConnectivityValidator?
        for (argument, reachability) in watched {
            guard let configuration, argument.isInternet, validator == nil else {
                let lines = WatchedLines(printer: printer, target: argument.text)
                try reachability.addConsumer(
                    rule: .snapshot, deliver: { snapshot in lines.print(snapshot) }, finish: { ended.signal() })
                continue
            }
            // Validation probes run on NIO's threads, so this one target's lines are printed from two places.
            let lines = ValidatedLines(printer: printer, target: argument.text)
            try reachability.addConsumer(
                rule: .snapshot, deliver: { snapshot in lines.receive(snapshot) }, finish: { ended.signal() })
            let started = try ConnectivityValidator(reachability: reachability, configuration: configuration)
            started.startListening(onQueue: DispatchQueue(label: "reach.validation")) { outcome in lines.receive(outcome) }
            validator = started
        }
        ended.waitForAll(watched.count)
        validator?.close()
        // Listening ends only when the subscription failed for good (a signal exits before this).
        if let failure = watched.lazy.compactMap({ $0.1.listeningFailure }).first { throw failure }
    }

    /// Each target's end of listening, told to the main thread through a pipe that it watches beside stdout.
    private final class EndSignal: Sendable {
        private let readEnd: Int32
        private let writeEnd: Int32

        init() {
            var ends: [Int32] = [-1, -1]
            _ = pipe(&ends)
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            (readEnd, writeEnd) = (ends[0], ends[1])
        }

        /// Called when a target's listening ends.
        func signal() {
            var byte: UInt8 = 0
            _ = write(writeEnd, &byte, 1)
        }

        /// Blocks until `count` ends were signalled; exits 0 when stdout's reader goes first (a pipe's reader closed,
        /// as `reach watch | head -1` does, or the terminal hung up), as `yes | head -1` ends, without waiting for a
        /// line to fail.
        func waitForAll(_ count: Int) {
            var remaining = count
            while remaining > 0 {
                var watched = [
                    pollfd(fd: STDOUT_FILENO, events: 0, revents: 0), pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0),
                ]
                guard poll(&watched, 2, -1) >= 0 else {
                    if errno == EINTR { continue }
                    return
                }
                if watched[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { Output.endProcess(0) }
                var bytes = [UInt8](repeating: 0, count: 64)
                if watched[1].revents & Int16(POLLIN) != 0 {
                    let count = read(readEnd, &bytes, bytes.count)
                    if count > 0 { remaining -= count }
                }
            }
        }
    }

    /// Makes a closed stdout an `EPIPE` from `write` rather than a `SIGPIPE`, and that error end the watch with
    /// exit 0: nobody reads what it would print.
    private static func endOnClosedOutput() {
        signal(SIGPIPE, SIG_IGN)
        Output.endsOnClosedOutput.store(true, ordering: .relaxed)
    }
}
