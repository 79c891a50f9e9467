import Foundation
import Testing
import TestSupport

/// The test helpers' own guarantee: a command that hangs is killed and fails its test, never hangs the run.
@Suite(.ownThread)
struct CommandTimeoutTests {
    @Test func aCommandStillRunningAfterItsTimeoutIsKilledAndReported() throws {
        let started = Date()
        let error = #expect(throws: CommandError.self) { try Command.run(["sleep", "30"], timeout: 1) }
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(error?.result.status == 128 + SIGKILL)
        #expect(error?.result.standardError.contains("still running after 1 s") == true)
    }

    @Test func aCommandThatEndsInTimeIsNotTouched() throws {
        let result = try Command.run(["sh", "-c", "echo done"], timeout: 30)
        #expect(result.status == 0 && result.lines == ["done"])
    }
}
