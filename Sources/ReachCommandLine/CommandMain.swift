package import ArgumentParser

/// How `reach` and `reach-queue` run: the standard descriptors taken first, the arguments parsed as the root command's,
/// the command run, and any failure ended as ``CommandFailure`` says.
package enum CommandMain {
    /// Runs the command the arguments name, on the main thread as `main` is: a synchronous command (`watch`) then
    /// starts no Swift-concurrency worker thread.
    ///
    /// - Parameters:
    ///   - root: the program's root command.
    ///   - check: what comes before parsing, once the descriptors are taken (`reach`'s hand-over to `reach-queue`, a
    ///     mistyped command's suggestion).
    ///   - classify: the exit status and line of the program's own error types.
    @MainActor
    package static func run(
        _ root: any ParsableCommand.Type, check: @Sendable () throws -> Void = {},
        classify: @Sendable (any Error) -> (code: Int32, message: String)? = { _ in nil }
    ) async {
        Output.takeStandardDescriptors()
        do {
            try check()
            var command = try root.parseAsRoot(nil)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            CommandFailure.end(error, root: root, classify: classify)
        }
    }
}
