package import ArgumentParser
import Logging
import NetworkReachabilityKit
import NetworkReachabilityValidationCore
import Synchronization

/// How `reach` and `reach-queue` end on an error: one line on stderr (a long quoted value cut), and the exit status
/// the error means: 64 for bad input, 70 for the system's failure, what sysexits(3) says for the rest.
package enum CommandFailure {
    /// The `--log-format` of a daemon whose options were read, which its last line is written in (`text` until then:
    /// an option that cannot be read is said as every command says it).
    package static var lineFormat: LineLogHandler.Format {
        get { LineLogHandler.Format.allCases[format.load(ordering: .relaxed)] }
        set { format.store(LineLogHandler.Format.allCases.firstIndex(of: newValue) ?? 0, ordering: .relaxed) }
    }
    private static let format = Atomic<Int>(0)

    /// Ends the process for `error`, thrown while `root` parsed or ran a command. `classify` gives the exit status and
    /// line of the command's own error types; the library's and ArgumentParser's are classified here.
    package static func end(
        _ error: any Error, root: any ParsableCommand.Type,
        classify: (any Error) -> (code: Int32, message: String)? = { _ in nil }
    ) -> Never {
        let code: Int32
        let message: String
        if let (ownCode, ownMessage) = classify(error) ?? libraryFailure(error) {
            (code, message) = (ownCode, ownMessage)
        } else {
            code = root.exitCode(for: error).rawValue
            if code == 0 {
                Output.line(root.fullMessage(for: error))  // --help, --version
                Output.endProcess(0)
            }
            message = root.message(for: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        }
        if !message.isEmpty {
            Output.error(LineLogHandler.line(lineFormat, level: .error, message: shortened(message), metadata: [], time: LineLogHandler.now()))
        }
        Output.endProcess(code)
    }

    /// The exit status and line of the library's errors: bad input is 64, the kernel's failure 70 (EX_SOFTWARE).
    private static func libraryFailure(_ error: any Error) -> (code: Int32, message: String)? {
        switch error {
        case let error as ReachabilityError:
            (error.isBadInput ? ExitCode.validationFailure.rawValue : 70, error.description)
        case let error as ValidationConfigurationError: (ExitCode.validationFailure.rawValue, error.description)
        default: nil
        }
    }

    /// Runs a check of a command's `validate()`: the library's error of bad input is thrown as ArgumentParser's
    /// `ValidationError` with its words, since ArgumentParser ends any other error `validate()` throws with exit 1.
    package static func validating<Result>(_ check: () throws -> Result) throws -> Result {
        do {
            return try check()
        } catch {
            guard let (code, message) = libraryFailure(error), code == ExitCode.validationFailure.rawValue else { throw error }
            throw ValidationError(message)
        }
    }

    /// `message` with each quoted value longer than 80 characters cut to 77 and `...`: a 10 KB bad value is not
    /// echoed whole.
    package static func shortened(_ message: String) -> String {
        var result = ""
        var rest = message[...]
        while let open = rest.firstIndex(of: "'"), let close = rest[rest.index(after: open)...].firstIndex(of: "'") {
            let quoted = rest[rest.index(after: open)..<close]
            result += rest[...open] + (quoted.count > 80 ? quoted.prefix(77) + "..." : quoted) + "'"
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        // A value with quotes of its own is not one quoted run: the line itself stays short.
        return result.count > 240 ? result.prefix(237) + "..." : result
    }
}

extension ReachabilityError {
    /// Whether the error is the user's input rather than the system's failure.
    package var isBadInput: Bool {
        switch self {
        case .invalidAddress, .invalidHostName, .invalidURL, .invalidNAT64Prefix, .unknownZone, .localAddressNotOwned,
            .familyMismatch, .invalidResolutionTimeout, .invalidTimeout, .invalidRetryPolicy:
            true
        case .systemCallFailed, .malformedKernelReply, .networkNamespaceDeleted, .timedOut: false
        }
    }
}
